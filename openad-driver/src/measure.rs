//! Each stage's resource use (`--timings`) and the progress bar.
//!
//! A stage runs as a child process; `wait4` returns its own CPU time and
//! peak resident memory (`ru_maxrss`), which `std::process` does not
//! expose. The progress bar (indicatif) appears only when stderr is a
//! terminal and the run has taken more than two seconds, so short runs,
//! pipes, logs and test output never see it.

use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes on before the progress bar shows.
const PROGRESS_DELAY: Duration = Duration::from_secs(2);

/// What one stage used.
pub struct StageUsage {
    pub name: String,
    pub wall: Duration,
    pub cpu: Duration,
    pub peak_rss_bytes: u64,
}

/// Runs `command` (stdout inherited; stderr too, or passed on line by line
/// above the progress bar when one may show) and waits for it with `wait4`,
/// returning its exit status and resource use.
pub fn run_measured(
    command: &mut Command,
    name: &str,
    progress: &Progress,
    scratch: Option<&Path>,
) -> io::Result<(ExitStatus, StageUsage)> {
    let start = Instant::now();
    // Piped when a bar may be drawn, or when diagnostics must lose the
    // scratch directory's path.
    if progress.may_show() || scratch.is_some() {
        command.stderr(Stdio::piped());
    }
    let mut child = command.spawn()?;
    let prefix = scratch.map(|dir| format!("{}/", dir.display()));
    // Lines written while the bar is drawn would be overwritten by it.
    let forward = child.stderr.take().map(|stderr| {
        let bar = progress.bar.clone();
        thread::spawn(move || {
            let mut lines = BufReader::new(stderr);
            let mut line = Vec::new();
            while matches!(lines.read_until(b'\n', &mut line), Ok(n) if n > 0) {
                let line_out = without_scratch_dir(&line, prefix.as_deref());
                bar.suspend(|| {
                    let _ = io::stderr().write_all(&line_out);
                });
                line.clear();
            }
        })
    });
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data, all-zero is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our own unreaped child (std does not wait for it:
        // `child` is only dropped, which neither waits nor kills), and both
        // pointers are to live locals.
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == pid {
            break;
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
    drop(child);
    if let Some(forward) = forward {
        let _ = forward.join();
    }
    let seconds = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let usage = StageUsage {
        name: name.to_string(),
        wall: start.elapsed(),
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        // Linux reports ru_maxrss in KiB.
        peak_rss_bytes: usage.ru_maxrss.max(0) as u64 * 1024,
    };
    Ok((ExitStatus::from_raw(status), usage))
}

/// `line` with every path into the scratch directory (`prefix`, ending in
/// `/`) reduced to the file's name: the directory is removed when openad
/// ends, so a stage's diagnostic that falls back to a position in an
/// intermediate file names it as `P.xb.xaif`, never a path that is gone.
fn without_scratch_dir<'a>(line: &'a [u8], prefix: Option<&str>) -> std::borrow::Cow<'a, [u8]> {
    let Some(prefix) = prefix else {
        return std::borrow::Cow::Borrowed(line);
    };
    let text = String::from_utf8_lossy(line);
    if !text.contains(prefix) {
        return std::borrow::Cow::Borrowed(line);
    }
    std::borrow::Cow::Owned(text.replace(prefix, "").into_bytes())
}

/// The stages' progress on stderr: hidden until the run has lasted
/// `PROGRESS_DELAY`, and for good when stderr is not a terminal.
pub struct Progress {
    bar: ProgressBar,
    /// Dropping it tells the thread that would reveal the bar to stop.
    stop: Option<mpsc::Sender<()>>,
    reveal: Option<thread::JoinHandle<()>>,
}

impl Progress {
    pub fn new(stages: u64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(stages), ProgressDrawTarget::hidden());
        if let Ok(style) =
            ProgressStyle::with_template("openad [{elapsed_precise}] {bar:20} {pos}/{len} {msg}")
        {
            bar.set_style(style);
        }
        if !io::stderr().is_terminal() {
            return Progress {
                bar,
                stop: None,
                reveal: None,
            };
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let shown = bar.clone();
        let reveal = thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(PROGRESS_DELAY) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(200));
            }
        });
        Progress {
            bar,
            stop: Some(stop),
            reveal: Some(reveal),
        }
    }

    /// Whether the bar may appear (stderr is a terminal).
    fn may_show(&self) -> bool {
        self.reveal.is_some()
    }

    /// Prints a line on stderr, above the bar if it shows.
    pub fn println(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }

    /// The stage now running.
    pub fn stage(&self, name: &str) {
        self.bar.set_message(name.to_string());
    }

    /// The stage just finished.
    pub fn advance(&self) {
        self.bar.inc(1);
    }

    /// Removes the bar (before anything else is printed).
    pub fn finish(mut self) {
        self.close();
    }

    fn close(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(reveal) = self.reveal.take() {
            let _ = reveal.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.close();
    }
}

/// The `--timings` table, for stderr.
pub fn timings_report(stages: &[StageUsage], total: Duration) -> String {
    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    let mut text = format!(
        "openad: timings\n  {:<14}{:>10}{:>10}{:>16}\n",
        "stage", "wall [s]", "CPU [s]", "peak RSS [MiB]"
    );
    for stage in stages {
        text += &format!(
            "  {:<14}{:>10.2}{:>10.2}{:>16.1}\n",
            stage.name,
            stage.wall.as_secs_f64(),
            stage.cpu.as_secs_f64(),
            mib(stage.peak_rss_bytes)
        );
    }
    let cpu: Duration = stages.iter().map(|s| s.cpu).sum();
    let peak = stages.iter().map(|s| s.peak_rss_bytes).max().unwrap_or(0);
    text += &format!(
        "  {:<14}{:>10.2}{:>10.2}{:>16.1}\n",
        "openad",
        total.as_secs_f64(),
        cpu.as_secs_f64(),
        mib(peak)
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_paths_are_reduced_to_file_names() {
        let prefix = Some("/tmp/openad.Ab12/");
        let line = b"/tmp/openad.Ab12/p.xb.xaif:3:4: error: x in /tmp/openad.Ab12/out/p.f90\n";
        assert_eq!(
            without_scratch_dir(line, prefix).as_ref(),
            b"p.xb.xaif:3:4: error: x in out/p.f90\n"
        );
        let user = b"head.f90:1:2: error: y\n";
        assert!(matches!(
            without_scratch_dir(user, prefix),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(without_scratch_dir(line, None).as_ref(), line);
    }

    #[test]
    fn measures_the_childs_own_peak_memory_and_status() {
        // dd fills a 64 MiB buffer from /dev/zero: its peak RSS is at least that.
        let mut command = Command::new("dd");
        command.args([
            "if=/dev/zero",
            "of=/dev/null",
            "bs=64M",
            "count=1",
            "status=none",
        ]);
        let progress = Progress::new(2);
        let (status, big) = run_measured(&mut command, "dd", &progress, None).unwrap();
        assert!(status.success());
        assert!(big.peak_rss_bytes >= 64 << 20, "{}", big.peak_rss_bytes);
        // The next child's figure is its own, not the maximum over children so far.
        let mut command = Command::new("sh");
        command.args(["-c", "exit 3"]);
        let (status, small) = run_measured(&mut command, "sh", &progress, None).unwrap();
        assert_eq!(status.code(), Some(3));
        assert!(
            small.peak_rss_bytes < big.peak_rss_bytes / 2,
            "{} {}",
            small.peak_rss_bytes,
            big.peak_rss_bytes
        );
        assert_eq!(small.name, "sh");
    }

    #[test]
    fn report_lists_every_stage_and_the_peak() {
        let stage = |name: &str, rss_mib: u64| StageUsage {
            name: name.to_string(),
            wall: Duration::from_millis(1500),
            cpu: Duration::from_millis(1250),
            peak_rss_bytes: rss_mib << 20,
        };
        let text = timings_report(
            &[stage("fortran2xaif", 10), stage("xaif-booster", 30)],
            Duration::from_secs(4),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5);
        assert!(lines[2].starts_with("  fortran2xaif") && lines[2].ends_with("10.0"));
        assert!(
            lines[4].contains("4.00") && lines[4].contains("2.50") && lines[4].ends_with("30.0")
        );
    }
}
