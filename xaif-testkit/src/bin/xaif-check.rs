//! `xaif-check INPUT.xaif TANGENT.xaif ADJOINT.xaif [SEED]`: the
//! interpreter check of one document (`xaif_testkit::check`) from the
//! command line, for front-end authors: prints each active subroutine's
//! verdict; exit status 1 when one failed, 2 on usage or reading errors.
//! Three draws (seeds SEED, SEED+1, SEED+2; the worst verdict counts): the
//! integers drawn for extents and loop bounds then differ, so an error
//! that one draw hides (an extent of one element) shows in another.

use std::process::ExitCode;

use xaif_schema::read::read_call_graph_file;
use xaif_testkit::check::{check_document, quiet_unsupported_panics, Verdict};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !(3..=4).contains(&args.len()) {
        eprintln!("usage: xaif-check INPUT.xaif TANGENT.xaif ADJOINT.xaif [SEED]");
        return ExitCode::from(2);
    }
    let seed = match args.get(3).map(|s| s.parse::<u64>()) {
        None => 1,
        Some(Ok(s)) => s,
        Some(Err(e)) => {
            eprintln!("xaif-check: error: SEED: {e}");
            return ExitCode::from(2);
        }
    };
    let mut graphs = Vec::new();
    for path in &args[..3] {
        match read_call_graph_file(std::path::Path::new(path)) {
            Ok(g) => graphs.push(g),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        }
    }
    quiet_unsupported_panics();
    let mut verdicts = check_document(&graphs[0], &graphs[1], &graphs[2], seed);
    for again in [seed + 1, seed + 2] {
        let next = check_document(&graphs[0], &graphs[1], &graphs[2], again);
        for (v, w) in verdicts.iter_mut().zip(next) {
            let worse = match (&v.1, &w.1) {
                (Verdict::Failed(_), _) => false,
                (_, Verdict::Failed(_)) => true,
                (Verdict::Passed { .. }, Verdict::Unsupported(_)) => true,
                _ => false,
            };
            if worse {
                *v = w;
            }
        }
    }
    let mut failed = false;
    for (routine, verdict) in verdicts {
        match verdict {
            Verdict::Passed { inputs, outputs } => {
                println!("{routine}: passed ({inputs} active inputs, {outputs} outputs)")
            }
            Verdict::Unsupported(why) => println!("{routine}: not interpretable: {why}"),
            Verdict::Failed(why) => {
                failed = true;
                println!("{routine}: FAILED: {why}")
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
