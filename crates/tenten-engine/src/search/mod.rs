//! The paper: Fig. 4's validator, the trace the debugger walks, the AND-OR
//! tree, the explanations, the heuristic F (equations 4 and 5) and the changer.

pub mod changer;
pub mod explain;
pub mod heuristic;
pub mod trace;
pub mod tree;
pub mod validator;
