//! What the drivers printed, compared: each mode against central finite
//! differences of the original program, the adjoints also against the
//! tangent (dot-product test), with the same measures as the test harness.

use std::collections::BTreeMap;

/// Relative error allowed against finite differences (the harness's default).
pub const FD_TOLERANCE: f64 = 1e-5;
/// Relative disagreement allowed between the adjoint and the tangent.
pub const DOT_TOLERANCE: f64 = 1e-12;
/// Relative disagreement allowed between y of a mode and of the original.
pub const VALUE_TOLERANCE: f64 = 1e-9;
/// Relative disagreement of one-sided differences that marks a kink.
pub const KINK_TOLERANCE: f64 = 1e-3;

/// The tagged lines of one driver run.
#[derive(Debug, Default)]
pub struct Printed {
    pub values: BTreeMap<usize, f64>,
    /// (pass, direction, k) → central difference.
    pub fd: BTreeMap<(usize, usize, usize), f64>,
    pub forward: BTreeMap<(usize, usize), f64>,
    pub backward: BTreeMap<(usize, usize), f64>,
    /// (direction, k) → (J·ẋ)(k).
    pub tangent: BTreeMap<(usize, usize), f64>,
    /// (direction, i) → (Jᵀ·ȳ)(i).
    pub adjoint: BTreeMap<(usize, usize), f64>,
}

impl Printed {
    pub fn parse(stdout: &str) -> Printed {
        let mut p = Printed::default();
        for line in stdout.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            let int = |s: &str| s.parse::<usize>().ok();
            let real = |s: &str| s.parse::<f64>().ok();
            match w.as_slice() {
                ["OAD_Y", k, v] => {
                    if let (Some(k), Some(v)) = (int(k), real(v)) {
                        p.values.insert(k, v);
                    }
                }
                ["OAD_FD", pass, j, k, v] => {
                    if let (Some(a), Some(j), Some(k), Some(v)) =
                        (int(pass), int(j), int(k), real(v))
                    {
                        p.fd.insert((a, j, k), v);
                    }
                }
                [tag @ ("OAD_FF" | "OAD_FB" | "OAD_T" | "OAD_A"), j, k, v] => {
                    if let (Some(j), Some(k), Some(v)) = (int(j), int(k), real(v)) {
                        let map = match *tag {
                            "OAD_FF" => &mut p.forward,
                            "OAD_FB" => &mut p.backward,
                            "OAD_T" => &mut p.tangent,
                            _ => &mut p.adjoint,
                        };
                        map.insert((j, k), v);
                    }
                }
                _ => {}
            }
        }
        p
    }
}

/// One compared quantity.
#[derive(Debug, Clone)]
pub struct Row {
    pub label: String,
    pub computed: f64,
    pub reference: f64,
    pub relative_error: f64,
}

/// The finite differences as the reference, with their own health.
pub struct Reference {
    pub values: Vec<f64>,
    /// fd[j][k]: central difference of y(k) along direction j (step h).
    pub fd: Vec<Vec<f64>>,
    /// Column scales: max(max_k |fd[j][k]|, 1e-4 (1 + ‖y‖∞)).
    pub scale: Vec<f64>,
    /// Why finite differences cannot judge at this x0, if so.
    pub unusable: Option<String>,
}

impl Reference {
    pub fn new(p: &Printed, ndir: usize, ny: usize) -> Reference {
        let values: Vec<f64> = (1..=ny)
            .map(|k| p.values.get(&k).copied().unwrap_or(f64::NAN))
            .collect();
        let y_norm = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let floor = 1e-4 * (1.0 + y_norm);
        let get = |m: &BTreeMap<(usize, usize, usize), f64>, pass, j, k| {
            m.get(&(pass, j, k)).copied().unwrap_or(f64::NAN)
        };
        let fd: Vec<Vec<f64>> = (1..=ndir)
            .map(|j| (1..=ny).map(|k| get(&p.fd, 1, j, k)).collect())
            .collect();
        let coarse: Vec<Vec<f64>> = (1..=ndir)
            .map(|j| (1..=ny).map(|k| get(&p.fd, 2, j, k)).collect())
            .collect();
        let scale: Vec<f64> = fd
            .iter()
            .map(|col| col.iter().fold(floor, |m, v| m.max(v.abs())))
            .collect();
        let worst = |a: &[Vec<f64>], b: &[Vec<f64>]| -> f64 {
            let mut w = 0.0f64;
            for (j, (ca, cb)) in a.iter().zip(b).enumerate() {
                for (x, y) in ca.iter().zip(cb) {
                    w = w.max(relative(*x, *y, scale[j]));
                }
            }
            w
        };
        let one_sided = |m: &BTreeMap<(usize, usize), f64>| -> Vec<Vec<f64>> {
            (1..=ndir)
                .map(|j| {
                    (1..=ny)
                        .map(|k| m.get(&(j, k)).copied().unwrap_or(f64::NAN))
                        .collect()
                })
                .collect()
        };
        let unusable = if values
            .iter()
            .chain(fd.iter().flatten())
            .any(|v| !v.is_finite())
        {
            Some("the original program printed non-finite values or finite differences".to_string())
        } else if fd.iter().flatten().all(|v| *v == 0.0) {
            Some("finite differences are all zero: y does not depend on x near x0".to_string())
        } else {
            let steps = worst(&fd, &coarse);
            let kink = worst(&one_sided(&p.forward), &one_sided(&p.backward));
            if steps > FD_TOLERANCE {
                Some(format!("finite differences with steps h and 100h disagree ({steps:.1e}): y is not smooth near x0 (try another --x0)"))
            } else if kink > KINK_TOLERANCE {
                Some(format!("forward and backward differences disagree ({kink:.1e}): x0 sits on a kink (try another --x0)"))
            } else {
                None
            }
        };
        Reference {
            values,
            fd,
            scale,
            unusable,
        }
    }
}

/// |a - b| / scale, with NaN as the worst error.
pub fn relative(a: f64, b: f64, scale: f64) -> f64 {
    let d = (a - b).abs() / scale;
    if d.is_nan() {
        f64::INFINITY
    } else {
        d
    }
}

/// The directions of a check and how rows are named.
pub struct Directions<'a> {
    pub xdots: &'a [Vec<f64>],
    pub ybars: &'a [Vec<f64>],
    /// Unit vectors: rows are Jacobian entries `J(k,i)`.
    pub unit: bool,
}

impl Directions<'_> {
    fn tangent_label(&self, j: usize, k: usize) -> String {
        if self.unit {
            format!("J({},{})", k + 1, j + 1)
        } else {
            format!("(J·ẋ{})({})", j + 1, k + 1)
        }
    }
    fn adjoint_label(&self, l: usize, j: usize) -> String {
        if self.unit {
            format!("J({},{})", l + 1, j + 1)
        } else {
            format!("ȳ{}ᵀ·J·ẋ{}", l + 1, j + 1)
        }
    }
}

/// Tangent rows: (J·ẋ_j)(k) against the finite differences.
pub fn tangent_rows(p: &Printed, r: &Reference, d: &Directions) -> Vec<Row> {
    let mut rows = Vec::new();
    for (j, col) in r.fd.iter().enumerate() {
        for (k, reference) in col.iter().enumerate() {
            let computed = p.tangent.get(&(j + 1, k + 1)).copied().unwrap_or(f64::NAN);
            rows.push(Row {
                label: d.tangent_label(j, k),
                computed,
                reference: *reference,
                relative_error: relative(computed, *reference, r.scale[j]),
            });
        }
    }
    rows
}

/// (Jᵀ·ȳ_l)·ẋ_j, from an adjoint run.
fn adjoint_projection(p: &Printed, l: usize, xdot: &[f64]) -> f64 {
    xdot.iter()
        .enumerate()
        .map(|(i, x)| x * p.adjoint.get(&(l + 1, i + 1)).copied().unwrap_or(f64::NAN))
        .sum()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Adjoint rows: ȳ_lᵀ·J·ẋ_j from the adjoint against ȳ_lᵀ·FD_j.
pub fn adjoint_rows(p: &Printed, r: &Reference, d: &Directions) -> Vec<Row> {
    let mut rows = Vec::new();
    for (l, ybar) in d.ybars.iter().enumerate() {
        for (j, xdot) in d.xdots.iter().enumerate() {
            let computed = adjoint_projection(p, l, xdot);
            let reference = dot(ybar, &r.fd[j]);
            let scale = r.scale[j] * ybar.iter().map(|v| v.abs()).sum::<f64>().max(1.0);
            rows.push(Row {
                label: d.adjoint_label(l, j),
                computed,
                reference,
                relative_error: relative(computed, reference, scale),
            });
        }
    }
    rows
}

/// The dot-product test: worst relative disagreement of ȳ_lᵀ·(J·ẋ_j)
/// (tangent) and (Jᵀ·ȳ_l)·ẋ_j (adjoint), relative to the size of the
/// whole Jacobian (its largest projected entry). Not to the column's: the
/// tangent and the adjoint sum the same products in different orders, so
/// they agree to rounding relative to the largest term, and a column that
/// comes out small through cancellation (a conserved quantity's
/// sensitivity, 1e-6 from terms of order 1) differs by 1e-10 of itself
/// with both right.
pub fn dot_product_error(tangent: &Printed, adjoint: &Printed, d: &Directions, ny: usize) -> f64 {
    let columns: Vec<Vec<f64>> = (0..d.xdots.len())
        .map(|j| {
            (1..=ny)
                .map(|k| {
                    tangent
                        .tangent
                        .get(&(j + 1, k))
                        .copied()
                        .unwrap_or(f64::NAN)
                })
                .collect()
        })
        .collect();
    let jacobian = columns.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut worst = 0.0f64;
    for (xdot, t) in d.xdots.iter().zip(&columns) {
        for (l, ybar) in d.ybars.iter().enumerate() {
            let a = dot(ybar, t);
            let b = adjoint_projection(adjoint, l, xdot);
            let scale = (jacobian * ybar.iter().map(|v| v.abs()).sum::<f64>())
                .max(a.abs())
                .max(1e-300);
            worst = worst.max(relative(a, b, scale));
        }
    }
    worst
}

/// Worst relative disagreement of a mode's y with the original's.
pub fn value_error(p: &Printed, r: &Reference) -> f64 {
    let y_norm = r.values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    r.values
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let a = p.values.get(&(k + 1)).copied().unwrap_or(f64::NAN);
            relative(a, *f, f.abs().max(1e-6 * (1.0 + y_norm)))
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(text: &str) -> Printed {
        Printed::parse(text)
    }

    #[test]
    fn a_wrong_tangent_entry_is_found_and_a_right_one_passes() {
        // y = (x1 * x2, x1 + x2) at x = (2, 3): J = [[3, 2], [1, 1]].
        let orig = printed(
            "OAD_Y 1 6.0\nOAD_Y 2 5.0\n\
             OAD_FD 1 1 1 3.0\nOAD_FD 1 1 2 1.0\nOAD_FD 1 2 1 2.0\nOAD_FD 1 2 2 1.0\n\
             OAD_FD 2 1 1 3.0\nOAD_FD 2 1 2 1.0\nOAD_FD 2 2 1 2.0\nOAD_FD 2 2 2 1.0\n\
             OAD_FF 1 1 3.0\nOAD_FB 1 1 3.0\nOAD_FF 1 2 1.0\nOAD_FB 1 2 1.0\n\
             OAD_FF 2 1 2.0\nOAD_FB 2 1 2.0\nOAD_FF 2 2 1.0\nOAD_FB 2 2 1.0\n",
        );
        let r = Reference::new(&orig, 2, 2);
        assert!(r.unusable.is_none());
        let xdots = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
        let d = Directions {
            xdots: &xdots,
            ybars: &xdots,
            unit: true,
        };
        let good = printed("OAD_T 1 1 3.0\nOAD_T 1 2 1.0\nOAD_T 2 1 2.0\nOAD_T 2 2 1.0\n");
        let worst = |rows: Vec<Row>| rows.iter().map(|r| r.relative_error).fold(0.0, f64::max);
        assert!(worst(tangent_rows(&good, &r, &d)) < 1e-12);
        let bad = printed("OAD_T 1 1 3.0\nOAD_T 1 2 1.0\nOAD_T 2 1 2.5\nOAD_T 2 2 1.0\n");
        assert!(worst(tangent_rows(&bad, &r, &d)) > 0.2);
        // The adjoint rows of J: row l of J is Jᵀ e_l.
        let adjoint = printed("OAD_A 1 1 3.0\nOAD_A 1 2 2.0\nOAD_A 2 1 1.0\nOAD_A 2 2 1.0\n");
        assert!(worst(adjoint_rows(&adjoint, &r, &d)) < 1e-12);
        assert!(dot_product_error(&good, &adjoint, &d, 2) < 1e-15);
        assert!(dot_product_error(&bad, &adjoint, &d, 2) > 0.1);
    }

    #[test]
    fn a_column_small_through_cancellation_is_judged_against_the_jacobian() {
        // J = [[12, -1.5e-6], [0, 12]]: the tangent's and the adjoint's
        // (1,2) entries differ in the 11th digit (rounding of terms of
        // order 1), which passes; off by 1e-8, which is 1e-9 of J, fails.
        let xdots = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
        let d = Directions {
            xdots: &xdots,
            ybars: &xdots,
            unit: true,
        };
        let tangent = |j12: &str| {
            printed(&format!(
                "OAD_T 1 1 12.0\nOAD_T 1 2 0.0\nOAD_T 2 1 {j12}\nOAD_T 2 2 12.0\n"
            ))
        };
        let adjoint = printed(
            "OAD_A 1 1 12.0\nOAD_A 1 2 -1.5494958717499063e-6\nOAD_A 2 1 0.0\nOAD_A 2 2 12.0\n",
        );
        assert!(dot_product_error(&tangent("-1.5494958716920574e-6"), &adjoint, &d, 2) < 1e-15);
        assert!(dot_product_error(&tangent("-1.5594958717499063e-6"), &adjoint, &d, 2) > 1e-10);
    }

    #[test]
    fn disagreeing_steps_make_the_reference_unusable() {
        let orig = printed("OAD_Y 1 1.0\nOAD_FD 1 1 1 1.0\nOAD_FD 2 1 1 2.0\n");
        let r = Reference::new(&orig, 1, 1);
        assert!(r.unusable.unwrap().contains("not smooth"));
        // |x| at 0: the central differences agree (0.5 both), one-sided do not.
        let kink = printed(
            "OAD_Y 1 1.0\nOAD_FD 1 1 1 0.5\nOAD_FD 2 1 1 0.5\nOAD_FF 1 1 1.0\nOAD_FB 1 1 0.0\n",
        );
        let r = Reference::new(&kink, 1, 1);
        assert!(r.unusable.unwrap().contains("kink"));
    }
}
