//! Random smooth expressions in the test programs' s-expression notation,
//! shared by the tangent and adjoint random-block tests. A fixed-seed
//! generator, so a failing case reproduces.

/// A linear congruential generator.
pub struct Lcg(pub u64);

#[allow(clippy::should_implement_trait)] // the tests call `rng.next()`: a generator, not an iterator
impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() as usize) % items.len()]
    }
}

/// A random smooth expression over `uses` (bounded arguments for exp,
/// denominators kept away from zero). `powers` adds real and integer
/// powers and `atan2` (for interpreters that know them).
pub fn expression(rng: &mut Lcg, depth: u32, uses: &[&str], powers: bool) -> String {
    if depth == 0 || rng.next().is_multiple_of(4) {
        return match rng.next() % 6 {
            0 => "2".to_string(),
            1 => "0.5d0".to_string(),
            _ => rng.pick(uses).to_string(),
        };
    }
    let a = expression(rng, depth - 1, uses, powers);
    let b = expression(rng, depth - 1, uses, powers);
    match rng.next() % if powers { 16 } else { 12 } {
        0 | 1 => format!("(add {a} {b})"),
        2 => format!("(sub {a} {b})"),
        3 | 4 => format!("(mul {a} {b})"),
        5 => format!("(div {a} (add 2 (mul {b} {b})))"),
        6 => format!("(sin {a})"),
        7 => format!("(cos {a})"),
        8 => format!("(exp (sin {a}))"),
        9 => format!("(sqrt (add 1 (mul {a} {a})))"),
        10 => format!("(tanh {a})"),
        11 => format!("(neg {a})"),
        12 => format!("(pow {a} 2)"),
        13 => format!("(pow (add 2 (mul {a} {a})) 0.5d0)"),
        14 => format!("(atan2 {a} (add 2 (mul {b} {b})))"),
        _ => format!("(pow {a} n)"),
    }
}
