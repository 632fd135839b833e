//! MPI examples (`mpi_procs` in example.toml): every leg is built with
//! `mpif90` and run with `mpirun -np N` at each process count. Every rank
//! calls `head` with the same x; the function checked is the sum over the
//! ranks of their y (an example puts its global result on one rank, or a
//! share of it on each). The drivers are the usual ones with every tagged
//! line summed over the ranks before rank 0 prints it, so tangents,
//! adjoints (x shared by all ranks: its adjoint is the sum of the ranks'),
//! finite differences and the dot-product test all see that function.

use std::path::Path;
use std::process::Command;

/// The compiler of MPI programs.
pub const COMPILER: &str = "mpif90";

/// Module prepended to a driver: the tagged lines, summed over the ranks.
const PRINT_MODULE: &str = "module oad_driver_mpi
  use mpi
  implicit none
contains
  subroutine oad_print_row(fmt, tag, k, value)
    character(*), intent(in) :: fmt, tag
    integer, intent(in) :: k
    real(8), intent(in) :: value
    real(8) :: total
    integer :: rank, ierr
    call mpi_comm_rank(mpi_comm_world, rank, ierr)
    call mpi_reduce(value, total, 1, mpi_double_precision, mpi_sum, 0, mpi_comm_world, ierr)
    if (rank == 0) write(*, fmt) tag, k, total
  end subroutine oad_print_row

  subroutine oad_print_entry(fmt, tag, k, i, value)
    character(*), intent(in) :: fmt, tag
    integer, intent(in) :: k, i
    real(8), intent(in) :: value
    real(8) :: total
    integer :: rank, ierr
    call mpi_comm_rank(mpi_comm_world, rank, ierr)
    call mpi_reduce(value, total, 1, mpi_double_precision, mpi_sum, 0, mpi_comm_world, ierr)
    if (rank == 0) write(*, fmt) tag, k, i, total
  end subroutine oad_print_entry
end module oad_driver_mpi
";

/// The MPI version of a generated driver: its program becomes a
/// subroutine run between `mpi_init` and `mpi_finalize`, and each tagged
/// `write(*, FMT) TAG, k, [i,] value` a reduction to rank 0.
pub fn driver(text: &str) -> Result<String, String> {
    let mut body = String::new();
    let mut name = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if name.is_none() {
            if let Some(n) = trimmed.strip_prefix("program ") {
                name = Some(n.trim().to_string());
                body.push_str("subroutine oad_driver_body\n  use oad_driver_mpi\n");
                continue;
            }
        }
        if trimmed.starts_with("end program") {
            body.push_str("end subroutine oad_driver_body\n");
            continue;
        }
        body.push_str(&tagged_write(line).unwrap_or_else(|| line.to_string()));
        body.push('\n');
    }
    let name = name.ok_or("driver without a program statement")?;
    Ok(format!(
        "{PRINT_MODULE}\n{body}\nprogram {name}\n  use mpi\n  implicit none\n  integer :: ierr\n  call mpi_init(ierr)\n  call oad_driver_body\n  call mpi_finalize(ierr)\nend program {name}\n"
    ))
}

/// `write(*, '(fmt)') 'TAG ', k, value` → `call oad_print_row('(fmt)', 'TAG ', k, value)`
/// (and the entry form with `k, i`); other lines: `None`.
fn tagged_write(line: &str) -> Option<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let rest = line.trim_start().strip_prefix("write(*, ")?;
    // The format is a quoted literal: `'(...)'`.
    let end_quote = 1 + rest.strip_prefix('\'')?.find('\'')?;
    let fmt = &rest[..=end_quote];
    let items = rest[end_quote + 1..].trim_start().strip_prefix(')')?.trim();
    // The tag is a literal, or the finite-difference driver's `tag`.
    if !items.starts_with("'OAD_") && !items.starts_with("tag,") {
        return None;
    }
    let commas = top_level_commas(items);
    let routine = match commas {
        2 => "oad_print_row",
        3 => "oad_print_entry",
        _ => return None,
    };
    Some(format!("{indent}call {routine}({fmt}, {items})"))
}

fn top_level_commas(text: &str) -> usize {
    let mut depth = 0i32;
    let mut quoted = false;
    let mut n = 0;
    for c in text.chars() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => n += 1,
            _ => {}
        }
    }
    n
}

/// `mpirun -np N program` (as root too; more processes than cores).
pub fn mpirun(timeout_secs: u64, procs: usize, program: &Path) -> Command {
    let mut command = Command::new("timeout");
    command
        .arg(timeout_secs.to_string())
        .arg("mpirun")
        .arg("--oversubscribe")
        .arg("-np")
        .arg(procs.to_string());
    // Open MPI refuses root without this flag.
    let root = std::env::var("USER").map(|u| u == "root").unwrap_or(false)
        || std::process::Command::new("id")
            .arg("-u")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
            .unwrap_or(false);
    if root {
        command.arg("--allow-run-as-root");
    }
    command.arg(program);
    // Open MPI's session files under a directory of this program's own:
    // runs of different examples at the same time do not share one.
    if let Some(dir) = program.parent() {
        let session = dir.join("ompi-session");
        if std::fs::create_dir_all(&session).is_ok() {
            command.env("TMPDIR", session);
        }
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tagged_writes_become_reductions() {
        let text = "program d\n  use OAD_active\n  write(*, '(a,i6,es25.16e3)') 'OAD_Y ', k, y(k)%v\n      write(*, '(a,2i6,es25.16e3)') 'OAD_J ', k, i, y(k)%d(i)\n  print *, 'hello'\nend program d\n";
        let out = driver(text).unwrap();
        assert!(out.contains("call oad_print_row('(a,i6,es25.16e3)', 'OAD_Y ', k, y(k)%v)"));
        assert!(
            out.contains("call oad_print_entry('(a,2i6,es25.16e3)', 'OAD_J ', k, i, y(k)%d(i))")
        );
        assert!(out.contains("subroutine oad_driver_body\n  use oad_driver_mpi\n  use OAD_active"));
        assert!(out.contains("end subroutine oad_driver_body"));
        assert!(out.contains("call mpi_init(ierr)"));
        assert!(out.contains("  print *, 'hello'"));
        assert!(driver("subroutine x\nend\n").is_err());
        assert_eq!(
            tagged_write("  write(*, '(f)') tag, k, i, (a(k) - b(k)) / h").unwrap(),
            "  call oad_print_entry('(f)', tag, k, i, (a(k) - b(k)) / h)"
        );
    }
}
