//! Golden games: every player under every generator, on both board sizes,
//! hashed. When the digest changes, games changed, and `plan::ENGINE` (the
//! behaviour version a result, a shard and a checkpoint store) must move
//! with it: the test fails until both are updated together, so a merge or
//! a resume can never join games of two behaviours.

use sha2::{Digest, Sha256};

use crate::fits::population::file::by_name;
use crate::fits::population::session::{Table, play_session, player_seed};
use crate::model::board::BoardSize;
use crate::model::generator::Generator;
use crate::model::pieces::PieceSet;
use crate::model::shapes::Shapes;
use crate::play::coelho::CoelhoWeights;
use crate::play::dealing::{Dealing, names};
use crate::play::game::{Round, play_game};
use crate::play::who::{NAMES, Who};
use crate::progress::Progress;
use crate::search::changer::ChangeOptions;
use crate::study::plan::ENGINE;

/// The behaviour version these games were played by, and their digest.
const GOLDEN: (&str, &str) = (
    "2",
    "540ef9078e47e859f004ee6cf7fc6cc4d6beece91ac295adc5cc28eb6f4095d6",
);

fn digest() -> String {
    let set = PieceSet::classic();
    let never = Progress::default();
    let mut hash = Sha256::new();
    for size in [BoardSize::CLASSIC, BoardSize::new(8, 8).unwrap()] {
        let shapes = Shapes::new(&set, size);
        for generator in names() {
            let dealing = Dealing::by_name(generator, &set).unwrap();
            for player in NAMES {
                let who = Who::by_name(player, CoelhoWeights::BEST).unwrap();
                let mut strategy = who.strategy();
                for seed in 1..=2u64 {
                    let mut dealer = dealing.dealer(&set, ChangeOptions::default());
                    let mut rounds: Vec<Round> = Vec::new();
                    let game = play_game(
                        &shapes,
                        &set,
                        3,
                        dealer.as_mut(),
                        strategy.as_mut(),
                        seed,
                        60,
                        Some(&mut rounds),
                        &never,
                    )
                    .unwrap();
                    hash.update(format!(
                        "{size} {generator} {player} {seed} {} {:?}\n",
                        game.rounds, game.end
                    ));
                    for r in &rounds {
                        hash.update(format!(
                            "{:?} {:?} {:?} {} {:?}\n",
                            r.board, r.holder, r.moves, r.repairs, r.after
                        ));
                    }
                }
            }
        }
        // A population's session: its players' draws and the quit model.
        let demo = by_name("demo").unwrap();
        let dealing = Dealing::by_name("random", &set).unwrap();
        let table = Table::new(&shapes, &set, 3, &dealing, 60);
        for i in 0..3 {
            let player = demo.draw("t", &mut Generator::new(player_seed(1, i))).player;
            let session = play_session(
                &table,
                &player,
                &demo.quit,
                i,
                &mut Default::default(),
                None,
                &never,
            )
            .unwrap();
            hash.update(format!("{session:?}\n"));
        }
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn games_change_only_with_the_engine_behaviour_version() {
    let now = digest();
    assert!(
        GOLDEN.0 == ENGINE && GOLDEN.1 == now,
        "the golden games {}: bump plan::ENGINE (now {ENGINE:?}) if games changed, and set GOLDEN to ({:?}, {now:?})",
        if GOLDEN.1 == now {
            "are unchanged but GOLDEN names another behaviour"
        } else {
            "changed"
        },
        if GOLDEN.1 == now {
            ENGINE.to_owned()
        } else {
            "the bumped version".to_owned()
        }
    );
}
