//! The first difference between two stored values, in words a person can
//! act on: objects by field in their declared order, lists of things with
//! an `id` or a `label` by that name ("pieces: sq3 weight"), other lists by
//! position.

use serde_json::Value;

/// Where `a` and `b` first differ ("pieces: sq3 weight"), and their two
/// values there; `None` when they are equal.
pub fn first(a: &Value, b: &Value) -> Option<(String, String, String)> {
    let mut path = Vec::new();
    let (x, y) = walk(a, b, &mut path)?;
    // "pieces: pieces sq3" says "pieces" once; "rules" says nothing.
    path.retain(|p| p != "rules");
    path.dedup();
    let head = path.first().cloned().unwrap_or_default();
    let rest = path[1.min(path.len())..].join(" ");
    let place = if rest.is_empty() {
        format!("{head}:")
    } else {
        format!("{head}: {rest}")
    };
    Some((place, x, y))
}

fn name_of(v: &Value) -> Option<String> {
    ["id", "label"]
        .iter()
        .find_map(|k| v.get(k).and_then(Value::as_str).map(str::to_owned))
}

fn walk(a: &Value, b: &Value, path: &mut Vec<String>) -> Option<(String, String)> {
    if a == b {
        return None;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for k in keys {
                let (u, v) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                if u != v {
                    path.push(k.clone());
                    return walk(u, v, path).or_else(|| Some((show(u), show(v))));
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                if u != v {
                    match (name_of(u), name_of(v)) {
                        (Some(n), Some(m)) if n == m => path.push(n),
                        (Some(n), Some(m)) => {
                            path.push(format!("#{}", i + 1));
                            return Some((n, m));
                        }
                        _ => path.push(format!("#{}", i + 1)),
                    }
                    return walk(u, v, path);
                }
            }
            Some((format!("{} entries", x.len()), format!("{} entries", y.len())))
        }
        _ => Some((show(a), show(b))),
    }
}

/// A value in a message: strings bare, long ones cut.
fn show(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Null => "nothing".to_owned(),
        other => other.to_string(),
    };
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_difference_is_named_by_field_and_by_the_name_of_what_holds_it() {
        let a = json!({"pieces": {"name": "c", "pieces": [{"id": "dot", "weight": 2}, {"id": "sq3", "weight": 2}]}, "seed": 1});
        let mut b = a.clone();
        b["pieces"]["pieces"][1]["weight"] = json!(40);
        assert_eq!(
            first(&a, &b),
            Some(("pieces: sq3 weight".to_owned(), "2".to_owned(), "40".to_owned()))
        );
        let mut c = a.clone();
        c["seed"] = json!(2);
        assert_eq!(
            first(&a, &c),
            Some(("seed:".to_owned(), "1".to_owned(), "2".to_owned()))
        );
        assert_eq!(first(&a, &a), None);
        let mut d = a.clone();
        d["pieces"]["pieces"].as_array_mut().unwrap().pop();
        assert_eq!(
            first(&a, &d).unwrap().1,
            "2 entries",
            "a list cut short says how long each is"
        );
    }
}
