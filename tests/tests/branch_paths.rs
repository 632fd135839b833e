//! One tape entry per path through nested branches (docs/adjoint.md,
//! "Control flow reversal"), read off the generated adjoint of corpus
//! example `branch_paths_clip` (the corpus legs check its derivatives;
//! this checks the tape layout, which a change could undo without changing
//! a derivative). Its clip is `if / else if / else if / else`, the last arm
//! an in-place update followed by a nested `if / else`:
//! - the chain pushes one number per element, 1 to 4, and its reversal is
//!   one `select case` over the four paths (one per branch before: three
//!   `select case`s and up to three pushes);
//! - the last arm keeps its own entry, and its nested branch pushes 1 or 2
//!   after it: at most two integers per element, which is what the taping
//!   loop reserves.

use std::fs;

use openad_tests::{examples_dir, generated_code, work_root};

fn clip_routine(mode: &str) -> String {
    let parent = work_root().join("branch-paths");
    fs::create_dir_all(&parent).unwrap();
    let scratch = tempfile::Builder::new()
        .prefix(&format!("{mode}-"))
        .tempdir_in(&parent)
        .unwrap();
    let source =
        fs::read_to_string(examples_dir().join("branch_paths_clip").join("head.f90")).unwrap();
    let code = generated_code(scratch.path(), "head.f90", &source, mode);
    // With its array dummies split, the routine is `clip_oad_s` behind a
    // wrapper `clip` (split_interface/wrappers.rs).
    let name = if code.contains("subroutine clip_oad_s(") {
        "clip_oad_s"
    } else {
        "clip"
    };
    let start = code
        .find(&format!("subroutine {name}("))
        .expect("clip in the output");
    let end = code[start..]
        .find(&format!("end subroutine {name}"))
        .expect("end of clip")
        + start;
    code[start..end].to_string()
}

/// The constants pushed on the integer tape, in order of appearance.
fn pushed_constants(clip: &str) -> Vec<i64> {
    clip.lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("oad_it(oad_it_ptr")?;
            let value = rest.split_once(") = ")?.1;
            value.trim().parse().ok()
        })
        .collect()
}

#[test]
fn else_if_chain_pushes_one_number_per_element() {
    for mode in ["rs", "rj"] {
        let clip = clip_routine(mode);
        assert_eq!(
            pushed_constants(&clip),
            vec![1, 2, 3, 1, 2, 4],
            "{mode}: branch numbers pushed in\n{clip}"
        );
        assert_eq!(
            clip.matches("select case (oad_branch)").count(),
            2,
            "{mode}: one select for the chain, one for the nested branch\n{clip}"
        );
        assert!(clip.contains("case (4)"), "{mode}: four paths\n{clip}");
        assert!(!clip.contains("case (5)"), "{mode}: four paths\n{clip}");
        // Room reserved before the element loop: two integers per element.
        assert!(
            clip.contains("oad_it_ptr + 2_8*max("),
            "{mode}: reservation per element\n{clip}"
        );
    }
}
