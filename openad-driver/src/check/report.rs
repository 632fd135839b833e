//! The verdict of each mode, printed as a table per mode and a summary
//! line, and written as JSON (`--json`) for scripts.

use std::path::Path;

use serde::Serialize;

use super::verdict::{Reference, Row, DOT_TOLERANCE, VALUE_TOLERANCE};
use crate::cli::Mode;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", content = "reason", rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail(String),
    /// Not checked: differentiation, compilation or the run failed, or
    /// finite differences cannot judge at x0.
    Error(String),
}

#[derive(Debug, Serialize)]
pub struct ModeReport {
    #[serde(serialize_with = "mode_name")]
    pub mode: Mode,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub worst_relative_error: Option<f64>,
    pub value_error: Option<f64>,
    pub dot_error: Option<f64>,
    #[serde(serialize_with = "rows_json")]
    pub rows: Vec<Row>,
}

fn mode_name<S: serde::Serializer>(m: &Mode, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(m.back_end_name())
}

fn rows_json<S: serde::Serializer>(rows: &[Row], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(rows.len()))?;
    for r in rows {
        seq.serialize_element(&serde_json::json!({
            "label": r.label,
            "computed": r.computed,
            "reference": r.reference,
            "relative_error": finite(r.relative_error),
        }))?;
    }
    seq.end()
}

/// JSON has no infinity: a NaN result is reported as null.
fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

impl ModeReport {
    pub fn new(mode: Mode) -> ModeReport {
        ModeReport {
            mode,
            verdict: Verdict::Pass,
            worst_relative_error: None,
            value_error: None,
            dot_error: None,
            rows: Vec::new(),
        }
    }

    /// Pass or fail from the rows, values and dot-product test.
    pub fn judge(&mut self, reference: &Reference, tolerance: f64) {
        let worst = self
            .rows
            .iter()
            .map(|r| r.relative_error)
            .fold(0.0f64, f64::max);
        self.worst_relative_error = Some(worst);
        self.verdict = if let Some(why) = &reference.unusable {
            Verdict::Error(format!("no reference: {why}"))
        } else if self.rows.is_empty() {
            Verdict::Fail("the driver printed no derivatives".into())
        } else if worst > tolerance {
            Verdict::Fail(format!(
                "relative error {worst:.1e} against finite differences exceeds {tolerance:.0e}"
            ))
        } else if let Some(e) = self.value_error.filter(|e| *e > VALUE_TOLERANCE) {
            Verdict::Fail(format!(
                "y differs from the original program's (relative {e:.1e})"
            ))
        } else if let Some(e) = self.dot_error.filter(|e| *e > DOT_TOLERANCE) {
            Verdict::Fail(format!(
                "dot-product test against the tangent fails (relative {e:.1e})"
            ))
        } else {
            Verdict::Pass
        };
    }
}

/// What every mode shares.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub routine: String,
    pub nx: usize,
    pub ny: usize,
    pub x0: Vec<f64>,
    /// Rows are Jacobian entries (else random projections).
    pub unit: bool,
    pub reference_problem: Option<String>,
}

/// At most this many rows per mode are printed (the worst ones).
const PRINTED_ROWS: usize = 12;

pub fn print(summary: &Summary, reports: &[ModeReport]) {
    println!(
        "openad check: {}: {} independent and {} dependent values; {}",
        summary.routine,
        summary.nx,
        summary.ny,
        if summary.unit {
            "every Jacobian entry against central finite differences"
        } else {
            "three random projections each way against central finite differences"
        }
    );
    if let Some(why) = &summary.reference_problem {
        println!("finite differences cannot judge at this x0: {why}");
    }
    for r in reports {
        println!();
        let head = match &r.verdict {
            Verdict::Pass => "pass".to_string(),
            Verdict::Fail(why) => format!("FAIL: {why}"),
            Verdict::Error(why) => format!("not checked: {why}"),
        };
        println!("== -m {}: {head}", r.mode.back_end_name());
        if r.rows.is_empty() {
            continue;
        }
        println!(
            "   {:<16} {:>24} {:>24} {:>10}",
            "quantity", "derivative code", "finite differences", "rel. error"
        );
        let mut order: Vec<&Row> = r.rows.iter().collect();
        if order.len() > PRINTED_ROWS {
            order.sort_by(|a, b| b.relative_error.total_cmp(&a.relative_error));
            order.truncate(PRINTED_ROWS);
        }
        for row in &order {
            println!(
                "   {:<16} {:>24.16e} {:>24.16e} {:>10.1e}",
                row.label, row.computed, row.reference, row.relative_error
            );
        }
        if r.rows.len() > PRINTED_ROWS {
            println!(
                "   ({} more rows with smaller errors)",
                r.rows.len() - PRINTED_ROWS
            );
        }
        let mut notes = Vec::new();
        if let Some(e) = r.worst_relative_error {
            notes.push(format!("worst relative error {e:.1e}"));
        }
        if let Some(e) = r.value_error {
            notes.push(format!("y against the original {e:.1e}"));
        }
        if let Some(e) = r.dot_error {
            notes.push(format!("dot-product test against the tangent {e:.1e}"));
        }
        println!("   {}", notes.join("; "));
    }
    println!();
    let verdicts: Vec<String> = reports
        .iter()
        .map(|r| {
            let v = match r.verdict {
                Verdict::Pass => "pass",
                Verdict::Fail(_) => "FAIL",
                Verdict::Error(_) => "not checked",
            };
            format!("{} {v}", r.mode.back_end_name())
        })
        .collect();
    let all =
        summary.reference_problem.is_none() && reports.iter().all(|r| r.verdict == Verdict::Pass);
    println!(
        "summary: {} ({})",
        verdicts.join(", "),
        if all {
            "every mode agrees"
        } else {
            "derivatives not confirmed"
        }
    );
}

pub fn write_json(path: &Path, summary: &Summary, reports: &[ModeReport]) -> std::io::Result<()> {
    let all =
        summary.reference_problem.is_none() && reports.iter().all(|r| r.verdict == Verdict::Pass);
    let value = serde_json::json!({
        "summary": summary,
        "modes": reports,
        "agree": all,
    });
    let text = serde_json::to_string_pretty(&value)?;
    std::fs::write(path, text + "\n")
}
