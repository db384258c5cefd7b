//! A simulated Actions runner: the action's steps run as the runner would run them, with
//! stand-ins for `curl`, `cargo` and `terraform`, against the fake GitHub.

use super::*;

/// Why the end-to-end runs cannot happen here, if they cannot.
pub(super) fn e2e_missing_tool() -> Option<&'static str> {
    if cfg!(windows) {
        return Some("the simulation runs on Linux and macOS");
    }
    if !have("bash", &["--version"]) {
        return Some("bash not installed");
    }
    let sha = ["sha256sum", "shasum", "openssl"]
        .iter()
        .any(|p| have(p, &["--version"]) || have(p, &["version"]));
    if !sha {
        return Some("no sha256sum, shasum or openssl");
    }
    None
}

/// What an end-to-end test needs: the fake GitHub, a runner for this machine named
/// `name` with the stand-ins `shims` on its PATH, and this machine's release target; `None`
/// after a `skipped:` line for `test` when this machine cannot run the action's steps.
pub(super) async fn e2e(
    test: &str,
    name: &str,
    shims: &[&str],
) -> Option<(FakeGitHub, Runner, &'static str)> {
    if let Some(why) = e2e_missing_tool() {
        skipped(test, why);
        return None;
    }
    let Some((os, arch, target)) = host_runner() else {
        skipped(test, "no release target for this machine");
        return None;
    };
    let fake = fake_github().await;
    let runner = Runner::new(name, os, arch);
    runner.shim(shims);
    Some((fake, runner, target))
}

/// `RUNNER_OS`, `RUNNER_ARCH` and release target of this machine.
pub(super) fn host_runner() -> Option<(&'static str, &'static str, &'static str)> {
    let os = match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "macOS",
        _ => return None,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "X64",
        "aarch64" => "ARM64",
        _ => return None,
    };
    RELEASE_TARGETS
        .iter()
        .find(|(o, a, _)| *o == os && *a == arch)
        .copied()
}

/// One simulated runner: a workspace, RUNNER_TEMP, a tool cache kept across runs, the
/// shims, and a directory of fake releases.
#[derive(Clone)]
pub(super) struct Runner {
    pub(super) _temp: std::sync::Arc<TempDir>,
    pub(super) dir: PathBuf,
    pub(super) workspace: PathBuf,
    pub(super) tool_cache: PathBuf,
    pub(super) shims: PathBuf,
    pub(super) releases: PathBuf,
    pub(super) log: PathBuf,
    pub(super) runner_os: String,
    pub(super) runner_arch: String,
}

impl Runner {
    pub(super) fn new(name: &str, runner_os: &str, runner_arch: &str) -> Runner {
        let temp = TempDir::new(&format!("action-{name}"));
        let dir = temp.path().to_path_buf();
        let runner = Runner {
            _temp: std::sync::Arc::new(temp),
            workspace: dir.join("workspace"),
            tool_cache: dir.join("toolcache"),
            shims: dir.join("shims"),
            releases: dir.join("releases"),
            log: dir.join("shims.log"),
            runner_os: runner_os.into(),
            runner_arch: runner_arch.into(),
            dir,
        };
        for d in [
            &runner.workspace,
            &runner.tool_cache,
            &runner.shims,
            &runner.releases,
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        // A GitHub CLI on this machine must not reach the network: unless a test puts the
        // stand-in there (`shim(&["gh"])`), `gh` is one that fails, as when it is missing.
        let gh = runner.shims.join("gh");
        std::fs::write(
            &gh,
            "#!/bin/sh\necho 'gh: not installed here' >&2\nexit 127\n",
        )
        .unwrap();
        set_executable(&gh);
        std::fs::write(&runner.log, "").unwrap();
        runner
    }

    /// Puts the stand-ins first on PATH (terraform only when asked).
    pub(super) fn shim(&self, names: &[&str]) {
        for name in names {
            let to = self.shims.join(name);
            std::fs::copy(fixtures().join("shims").join(name), &to).unwrap();
            set_executable(&to);
        }
    }

    pub(super) fn log_lines(&self, prefix: &str) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with(prefix))
            .map(str::to_string)
            .collect()
    }

    pub(super) fn clear_log(&self) {
        std::fs::write(&self.log, "").unwrap();
    }

    /// Publishes a fake release `tag` holding the already-built planmark as `asset`, with a
    /// checksums.txt (listing `checksum` for it when given, else its real SHA-256).
    pub(super) fn publish_release(&self, tag: &str, asset: &str, checksum: Option<&str>) {
        let dir = self.releases.join(tag);
        let stage = self.dir.join(format!("stage-{tag}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&stage).unwrap();
        // A launcher for the binary this test run built: packing the 100 MB debug binary
        // itself would only make the test slow.
        let launcher = format!(
            "#!/bin/sh\nexec '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_planmark")
        );
        std::fs::write(stage.join("planmark"), launcher).unwrap();
        set_executable(&stage.join("planmark"));
        std::fs::copy(root().join("README.md"), stage.join("README.md")).unwrap();
        let status = Command::new("tar")
            .arg("-czf")
            .arg(dir.join(asset))
            .arg("-C")
            .arg(&stage)
            .args(["planmark", "README.md"])
            .status()
            .unwrap();
        assert!(status.success(), "tar failed");
        let bytes = std::fs::read(dir.join(asset)).unwrap();
        let real = format!("{:x}", Sha256::digest(&bytes));
        let listed = checksum.map_or(real, str::to_string);
        let other = "0".repeat(64);
        let text = format!("{other}  planmark-example-target.tar.gz\n{listed}  {asset}\n");
        std::fs::write(dir.join("checksums.txt"), text).unwrap();
    }

    /// Gives release `tag` the commit it was built from (release.yml's `commit.txt`) and,
    /// when `attested`, build provenance for its `asset` (as the gh stand-in reads it).
    pub(super) fn publish_provenance(&self, tag: &str, asset: &str, commit: &str, attested: bool) {
        let dir = self.releases.join(tag);
        std::fs::write(dir.join("commit.txt"), format!("{commit}\n")).unwrap();
        if attested {
            let bytes = std::fs::read(dir.join(asset)).unwrap();
            let line = format!("{:x}\n", Sha256::digest(&bytes));
            let list = self.releases.join("attested.txt");
            let mut text = std::fs::read_to_string(&list).unwrap_or_default();
            text.push_str(&line);
            std::fs::write(list, text).unwrap();
        }
    }
}

#[cfg(unix)]
pub(super) fn set_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(not(unix))]
pub(super) fn set_executable(_: &Path) {}

/// What the workflow gives the action: inputs (`with:`) and the `github` context.
#[derive(Clone, Default)]
pub(super) struct Invocation {
    pub(super) inputs: BTreeMap<String, String>,
    pub(super) github: BTreeMap<String, String>,
    pub(super) env: BTreeMap<String, String>,
}

impl Invocation {
    pub(super) fn with(mut self, name: &str, value: &str) -> Self {
        self.inputs.insert(name.into(), value.into());
        self
    }
    pub(super) fn github(mut self, name: &str, value: &str) -> Self {
        self.github.insert(name.into(), value.into());
        self
    }
    pub(super) fn env(mut self, name: &str, value: &str) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }
}

pub(super) struct StepRun {
    pub(super) name: String,
    pub(super) code: Option<i32>,
    pub(super) stdout: String,
    pub(super) stderr: String,
    pub(super) outputs: BTreeMap<String, String>,
    pub(super) summary: String,
}

pub(super) struct ActionRun {
    pub(super) steps: Vec<StepRun>,
    /// The action's outputs, evaluated as the runner does after the last step.
    pub(super) outputs: BTreeMap<String, String>,
    /// PATH entries the steps added through GITHUB_PATH.
    pub(super) path_added: Vec<String>,
}

impl ActionRun {
    pub(super) fn ok(&self) -> bool {
        self.steps.iter().all(|s| s.code == Some(0))
    }

    pub(super) fn describe(&self) -> String {
        let mut text = String::new();
        for s in &self.steps {
            text.push_str(&format!(
                "--- step {:?}: exit {:?}\nstdout:\n{}\nstderr:\n{}\n",
                s.name, s.code, s.stdout, s.stderr
            ));
        }
        text
    }

    pub(super) fn step(&self, name_start: &str) -> &StepRun {
        self.steps
            .iter()
            .find(|s| s.name.starts_with(name_start))
            .unwrap_or_else(|| panic!("no step {name_start:?} ran:\n{}", self.describe()))
    }
}

/// Evaluates the `${{ }}` in `value`: `inputs.*`, `steps.ID.outputs.*`, `github.*`.
pub(super) fn evaluate(
    value: &str,
    action: &Action,
    call: &Invocation,
    steps: &BTreeMap<String, BTreeMap<String, String>>,
) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 3..];
        let end = after.find("}}").expect("closed expression");
        let expression = after[..end].trim();
        let parts: Vec<&str> = expression.split('.').collect();
        let resolved = match parts.as_slice() {
            ["inputs", name] => match call.inputs.get(*name) {
                Some(v) => v.clone(),
                None => {
                    let input = action.inputs.iter().find(|i| i.name == *name);
                    let default = input.and_then(|i| i.default.clone()).unwrap_or_default();
                    evaluate(&default, action, call, steps)
                }
            },
            ["steps", id, "outputs", name] => steps
                .get(*id)
                .and_then(|o| o.get(*name))
                .cloned()
                .unwrap_or_default(),
            ["github", name] => call
                .github
                .get(*name)
                .cloned()
                .unwrap_or_else(|| panic!("the simulation has no github.{name}")),
            _ => panic!("the simulation cannot evaluate `{expression}`"),
        };
        out.push_str(&resolved);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Reads a `GITHUB_OUTPUT` file: `name=value` lines and `name<<DELIMITER` blocks.
pub(super) fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut outputs = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.is_empty() {
            continue;
        }
        match (line.find('='), line.find("<<")) {
            (Some(eq), heredoc) if heredoc.is_none_or(|h| eq < h) => {
                outputs.insert(line[..eq].to_string(), line[eq + 1..].to_string());
            }
            (_, Some(h)) => {
                let delimiter = &line[h + 2..];
                let mut value = Vec::new();
                for next in lines.by_ref() {
                    if next == delimiter {
                        break;
                    }
                    value.push(next);
                }
                outputs.insert(line[..h].to_string(), value.join("\n"));
            }
            _ => panic!("GITHUB_OUTPUT: malformed line {line:?}"),
        }
    }
    outputs
}

/// Runs every step of the action like the runner: each script in a file through
/// `bash --noprofile --norc -eo pipefail`, with the job's variables plus the step's
/// evaluated `env:`, a fresh GITHUB_OUTPUT/GITHUB_STEP_SUMMARY/GITHUB_PATH per step, and
/// the PATH entries earlier steps added. Stops at the first failing step.
pub(super) fn run_steps(
    runner: &Runner,
    call: &Invocation,
    action: &Action,
    fake: &GitHubEnv,
) -> ActionRun {
    let temp = runner.dir.join(format!("runner-temp-{}", unique()));
    std::fs::create_dir_all(&temp).unwrap();
    let mut system_path = std::env::var("PATH").unwrap_or_default();
    // A runner given the tofu stand-in has OpenTofu only: a Terraform installed on this
    // machine would be found first.
    if runner.shims.join("tofu").exists() {
        system_path = std::env::split_paths(&system_path)
            .filter(|dir| {
                !["terraform", "terraform-bin"]
                    .iter()
                    .any(|t| dir.join(t).exists())
            })
            .map(|dir| dir.display().to_string())
            .collect::<Vec<_>>()
            .join(":");
    }
    let mut path_added: Vec<String> = Vec::new();
    let mut outputs_by_id: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut runs = Vec::new();
    for (index, step) in action.steps.iter().enumerate() {
        let files = temp.join(format!("step-{index}"));
        std::fs::create_dir_all(&files).unwrap();
        let script = files.join("script.sh");
        std::fs::write(&script, &step.run).unwrap();
        let (output, summary, add_path) = (
            files.join("output"),
            files.join("summary"),
            files.join("path"),
        );
        for f in [&output, &summary, &add_path] {
            std::fs::write(f, "").unwrap();
        }
        let mut path: Vec<String> = path_added.iter().rev().cloned().collect();
        path.push(runner.shims.display().to_string());
        path.push(system_path.clone());

        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(&runner.workspace)
            .env_clear()
            .env("PATH", path.join(":"))
            .env("HOME", runner.dir.join("home"))
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_ACTION", "__planmark")
            .env("GITHUB_ACTION_PATH", root())
            // Empty in composite actions (actions/runner#2473); the action uses the context.
            .env("GITHUB_ACTION_REPOSITORY", "")
            .env("GITHUB_ACTION_REF", "")
            .env("GITHUB_WORKSPACE", &runner.workspace)
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_PATH", &add_path)
            .env("GITHUB_ENV", files.join("env"))
            .env("RUNNER_OS", &runner.runner_os)
            .env("RUNNER_ARCH", &runner.runner_arch)
            .env("RUNNER_TEMP", &temp)
            .env("RUNNER_TOOL_CACHE", &runner.tool_cache)
            .env("SHIM_LOG", &runner.log)
            .env("FAKE_RELEASES", &runner.releases)
            .env("PLANMARK_PREBUILT", env!("CARGO_BIN_EXE_planmark"))
            .env("FAKE_TF_PLAN", root().join("examples/plan.json"))
            .env("FAKE_TF_SCHEMAS", root().join("examples/schemas.json"));
        for (k, v) in &fake.vars {
            cmd.env(k, v);
        }
        for (k, v) in &call.env {
            cmd.env(k, v);
        }
        for (k, v) in &step.env {
            cmd.env(k, evaluate(v, action, call, &outputs_by_id));
        }
        let (code, stdout, stderr) = run_with_timeout(cmd);
        let outputs = parse_outputs(&std::fs::read_to_string(&output).unwrap());
        path_added.extend(
            std::fs::read_to_string(&add_path)
                .unwrap()
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        );
        if let Some(id) = &step.id {
            outputs_by_id.insert(id.clone(), outputs.clone());
        }
        let failed = code != Some(0);
        runs.push(StepRun {
            name: step.name.clone(),
            code,
            stdout,
            stderr,
            outputs,
            summary: std::fs::read_to_string(&summary).unwrap(),
        });
        if failed {
            break;
        }
    }
    let outputs = action
        .outputs
        .iter()
        .map(|(name, value)| (name.clone(), evaluate(value, action, call, &outputs_by_id)))
        .collect();
    ActionRun {
        steps: runs,
        outputs,
        path_added,
    }
}

pub(super) fn unique() -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

pub(super) fn run_with_timeout(mut cmd: Command) -> (Option<i32>, String, String) {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start bash");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the action did not finish in {}s", RUN_TIMEOUT.as_secs());
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status.code(), out_t.join().unwrap(), err_t.join().unwrap())
}

/// The variables a pull_request job on octo/infra#7 has, pointed at the fake GitHub.
pub(super) struct GitHubEnv {
    pub(super) vars: Vec<(String, String)>,
}

impl GitHubEnv {
    pub(super) fn new(fake: &FakeGitHub, run_id: u64) -> GitHubEnv {
        let vars = [
            ("GITHUB_API_URL", fake.api_url()),
            ("GITHUB_GRAPHQL_URL", fake.graphql_url()),
            ("GITHUB_SERVER_URL", "https://github.com".into()),
            ("GITHUB_REPOSITORY", "octo/infra".into()),
            ("GITHUB_REPOSITORY_OWNER", "octo".into()),
            ("GITHUB_EVENT_NAME", "pull_request".into()),
            (
                "GITHUB_EVENT_PATH",
                fixtures()
                    .join("event-pull_request.json")
                    .display()
                    .to_string(),
            ),
            (
                "GITHUB_SHA",
                "3333333333333333333333333333333333333333".into(),
            ),
            ("GITHUB_REF", "refs/pull/7/merge".into()),
            ("GITHUB_REF_NAME", "7/merge".into()),
            ("GITHUB_HEAD_REF", "feature/db".into()),
            ("GITHUB_BASE_REF", "main".into()),
            ("GITHUB_RUN_ID", run_id.to_string()),
            ("GITHUB_RUN_ATTEMPT", "1".into()),
            ("GITHUB_WORKFLOW", "terraform".into()),
            ("GITHUB_JOB", "plan".into()),
        ];
        GitHubEnv {
            vars: vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }
    }
}

pub(super) async fn fake_github() -> FakeGitHub {
    let fake = FakeGitHub::start(Flavor::Dotcom).await;
    fake.add_repo("octo", "infra");
    fake.add_pull(
        "octo",
        "infra",
        7,
        "1111111111111111111111111111111111111111",
        "feature/db",
        "open",
    );
    fake.add_token(TOKEN, User::actions_bot());
    fake
}

/// The workspace of the examples: `infra/plan.json` and `infra/schemas.json`.
pub(super) fn infra(runner: &Runner) -> PathBuf {
    let dir = runner.workspace.join("infra");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("examples/plan.json"), dir.join("plan.json")).unwrap();
    std::fs::copy(
        root().join("examples/schemas.json"),
        dir.join("schemas.json"),
    )
    .unwrap();
    dir
}

pub(super) fn base_call() -> Invocation {
    Invocation::default()
        .github("token", TOKEN)
        .github("action_repository", "")
        .github("action_ref", "")
}

pub(super) async fn run_blocking(runner: &Runner, call: &Invocation, env: GitHubEnv) -> ActionRun {
    let (runner, call) = (runner.clone(), call.clone());
    tokio::task::spawn_blocking(move || run_steps(&runner, &call, &action(), &env))
        .await
        .unwrap()
}

pub(super) fn assert_outputs_for_example(run: &ActionRun, comment_id: u64) {
    let step = &run.step("Comment").outputs;
    for name in STEP_OUTPUTS {
        assert!(
            step.contains_key(name),
            "GITHUB_OUTPUT lacks {name}: {step:?}"
        );
    }
    let expected = [
        ("has_changes", "true"),
        ("add", "2"),
        ("change", "0"),
        ("destroy", "1"),
        ("replace", "1"),
        ("import", "0"),
        ("move", "0"),
        ("invoke", "0"),
        ("truncated", "false"),
    ];
    for (name, value) in expected {
        assert_eq!(
            run.outputs.get(name).map(String::as_str),
            Some(value),
            "action output {name}"
        );
    }
    assert_eq!(run.outputs["comment_id"], comment_id.to_string());
    assert!(
        !run.outputs["comment_url"].is_empty(),
        "comment_url: {:?}",
        run.outputs
    );
}
