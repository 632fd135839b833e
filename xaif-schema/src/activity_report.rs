//! Why each variable is active or passive: the side file `P.act` the front
//! end writes (`fortran2xaif --activity`) from its activity analysis, read
//! by `openad explore`. XAIF carries only the decision (`active`); a user
//! asking "why is this active?" needs the reasons behind it.
//!
//! ```text
//! # openad activity 1
//! unit head
//! variable x real(8) active varied,useful,together,seed
//! variable t real(8) passive varied
//! variable n integer passive
//! ```
//!
//! After the type: `active` or `passive` (declared `type(active)` or
//! not), then the facts, comma separated, none for a passive variable the
//! analysis found nothing about: `varied` (depends on an independent at
//! some point), `useful` (some dependent depends on it at some point),
//! `together` (varied and useful at the same point: flow-active), `seed`
//! (named in an INDEPENDENT or DEPENDENT pragma), `conservative` (the
//! analysis could not run: everything real is active).

use std::fmt::{self, Write as _};

use crate::error::XaifError;

const HEADER: &str = "# openad activity 1";

/// The analysis facts about one variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ActivityFacts {
    pub varied: bool,
    pub useful: bool,
    /// Varied and useful at the same point (flow-active).
    pub together: bool,
    pub seed: bool,
    pub conservative: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableActivity {
    pub name: String,
    /// As Fortran writes it: `real(8)`, `integer`, ...
    pub type_name: String,
    /// Declared `type(active)` in the derivative code.
    pub active: bool,
    pub facts: ActivityFacts,
}

impl VariableActivity {
    /// The reason in words, for a report.
    pub fn reason(&self) -> String {
        let f = &self.facts;
        let differentiable =
            self.type_name.starts_with("real") || self.type_name.starts_with("complex");
        if f.conservative {
            return "the analysis could not run: every real variable is active".into();
        }
        if !differentiable {
            return format!("{}: carries no derivative", self.type_name);
        }
        match (self.active, f.seed, f.together, f.varied, f.useful) {
            (true, true, _, _, _) => "named in an INDEPENDENT or DEPENDENT pragma".into(),
            (true, _, true, _, _) => "varied and useful at the same point".into(),
            (true, _, _, _, _) => {
                "bound at a call to an active argument or aliased with active data (the types of actual and dummy must agree)".into()
            }
            (false, _, _, true, true) => "varied and useful, but never at the same point".into(),
            (false, _, _, true, false) => "varied, but no dependent depends on it (not useful)".into(),
            (false, _, _, false, true) => "useful, but depends on no independent (not varied)".into(),
            (false, _, _, false, false) => "neither varied nor useful".into(),
        }
    }
}

/// The variables of one routine.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UnitActivity {
    pub unit: String,
    pub variables: Vec<VariableActivity>,
}

/// The whole program's activity report.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ActivityReport {
    pub units: Vec<UnitActivity>,
}

impl fmt::Display for ActivityReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{HEADER}")?;
        for u in &self.units {
            writeln!(f, "unit {}", u.unit)?;
            for v in &u.variables {
                let mut facts = Vec::new();
                let a = &v.facts;
                for (on, word) in [
                    (a.varied, "varied"),
                    (a.useful, "useful"),
                    (a.together, "together"),
                    (a.seed, "seed"),
                    (a.conservative, "conservative"),
                ] {
                    if on {
                        facts.push(word);
                    }
                }
                let mut line = format!(
                    "variable {} {} {}",
                    v.name,
                    v.type_name,
                    if v.active { "active" } else { "passive" }
                );
                if !facts.is_empty() {
                    let _ = write!(line, " {}", facts.join(","));
                }
                writeln!(f, "{line}")?;
            }
        }
        Ok(())
    }
}

impl ActivityReport {
    /// Reads the text of a `P.act` file (`file` names it in errors).
    pub fn parse(file: &str, text: &str) -> Result<ActivityReport, XaifError> {
        let err = |line: usize, message: String| XaifError {
            file: file.to_string(),
            line: line + 1,
            column: 1,
            message,
        };
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, h)) if h.trim() == HEADER => {}
            _ => {
                return Err(err(
                    0,
                    format!("not an activity report (first line must be `{HEADER}`)"),
                ))
            }
        }
        let mut out = ActivityReport::default();
        for (n, line) in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [] => {}
                ["unit", name] => out.units.push(UnitActivity {
                    unit: name.to_string(),
                    variables: Vec::new(),
                }),
                ["variable", name, ty, decision, facts @ ..] if facts.len() <= 1 => {
                    let active = match *decision {
                        "active" => true,
                        "passive" => false,
                        other => {
                            return Err(err(
                                n,
                                format!("expected active or passive, found `{other}`"),
                            ))
                        }
                    };
                    let mut a = ActivityFacts::default();
                    for fact in facts.iter().flat_map(|f| f.split(',')) {
                        match fact {
                            "varied" => a.varied = true,
                            "useful" => a.useful = true,
                            "together" => a.together = true,
                            "seed" => a.seed = true,
                            "conservative" => a.conservative = true,
                            other => return Err(err(n, format!("unknown fact `{other}`"))),
                        }
                    }
                    let Some(unit) = out.units.last_mut() else {
                        return Err(err(n, "a variable before any unit".into()));
                    };
                    unit.variables.push(VariableActivity {
                        name: name.to_string(),
                        type_name: ty.to_string(),
                        active,
                        facts: a,
                    });
                }
                _ => return Err(err(n, format!("unknown record `{line}`"))),
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_text_reads_back_and_reasons_follow_the_facts() {
        let v = |name: &str, ty: &str, active: bool, facts: ActivityFacts| VariableActivity {
            name: name.into(),
            type_name: ty.into(),
            active,
            facts,
        };
        let report = ActivityReport {
            units: vec![UnitActivity {
                unit: "head".into(),
                variables: vec![
                    v(
                        "x",
                        "real(8)",
                        true,
                        ActivityFacts {
                            varied: true,
                            useful: true,
                            together: true,
                            seed: true,
                            conservative: false,
                        },
                    ),
                    v(
                        "t",
                        "real(8)",
                        false,
                        ActivityFacts {
                            varied: true,
                            ..Default::default()
                        },
                    ),
                    v(
                        "c",
                        "real(8)",
                        false,
                        ActivityFacts {
                            useful: true,
                            ..Default::default()
                        },
                    ),
                    v(
                        "w",
                        "real(8)",
                        true,
                        ActivityFacts {
                            varied: true,
                            useful: true,
                            together: true,
                            ..Default::default()
                        },
                    ),
                    v("n", "integer", false, ActivityFacts::default()),
                ],
            }],
        };
        let text = report.to_string();
        assert!(text.contains("variable x real(8) active varied,useful,together,seed\n"));
        assert!(text.contains("variable n integer passive\n"));
        assert_eq!(ActivityReport::parse("p.act", &text).unwrap(), report);
        let reasons: Vec<String> = report.units[0]
            .variables
            .iter()
            .map(|v| v.reason())
            .collect();
        assert_eq!(reasons[0], "named in an INDEPENDENT or DEPENDENT pragma");
        assert!(reasons[1].contains("not useful"));
        assert!(reasons[2].contains("not varied"));
        assert_eq!(reasons[3], "varied and useful at the same point");
        assert!(reasons[4].contains("carries no derivative"));
        assert!(
            ActivityReport::parse("p.act", "# openad activity 1\nvariable x real(8) active\n")
                .is_err()
        );
    }
}
