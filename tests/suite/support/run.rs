//! Running the binary with a timeout, its output captured.

use super::*;

/// A hung renderer must not hang `cargo test`.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

pub struct RunOutput {
    /// `None` when killed by a signal or by the timeout.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
}

impl RunOutput {
    pub fn ok(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// One line describing a failed run, for reports.
    pub fn describe_failure(&self) -> String {
        let status = match (self.timed_out, self.code) {
            (true, _) => format!("timed out after {}s", RUN_TIMEOUT.as_secs()),
            (false, Some(c)) => format!("exit code {c}"),
            (false, None) => "killed by a signal".to_owned(),
        };
        let stderr = String::from_utf8_lossy(&self.stderr);
        let first: Vec<&str> = stderr.lines().take(5).collect();
        if first.is_empty() {
            status
        } else {
            format!("{status}; stderr: {}", first.join(" | "))
        }
    }
}

/// `planmark render --format text [--schemas SCHEMAS] PLAN`. No `--mode`: the
/// binary must infer refresh-only / destroy from the JSON like the user would
/// expect.
pub fn run_render(plan: &Path, schemas: Option<&Path>) -> RunOutput {
    run_render_with(plan, schemas, &[])
}

/// [`run_render`] with more options (e.g. `--tool tofu`).
pub fn run_render_with(plan: &Path, schemas: Option<&Path>, options: &[&str]) -> RunOutput {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.args(["render", "--format", "text"]);
    if let Some(s) = schemas {
        cmd.arg("--schemas").arg(s);
    }
    cmd.args(options);
    cmd.arg(plan);
    run_with_timeout(cmd)
}

fn run_with_timeout(mut cmd: Command) -> RunOutput {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("NO_COLOR", "1")
        // In Actions the output would be wrapped to pause workflow commands.
        .env_remove("GITHUB_ACTIONS");
    let mut child = cmd.spawn().expect("cannot start the planmark binary");
    // Drain both pipes on threads so a chatty child cannot block on a full pipe.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for planmark") {
            break status;
        }
        if start.elapsed() > RUN_TIMEOUT {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait for killed planmark");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    RunOutput {
        code: status.code(),
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
        timed_out,
    }
}
