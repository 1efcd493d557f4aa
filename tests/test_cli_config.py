"""`migrate` in a Python project's tooling: [tool.migrate] in pyproject.toml, --exclude, --output-format,
--quiet, and the pre-commit hook, each run as users run them (real processes, real files)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.conftest import EXAMPLE, MIGRATE, QUIET_TF, ROOT, run

# A module the rewrite cannot migrate on its own (it binds `canned`, the name the migrated code would import).
NAME_CLASH = ROOT / "tests" / "codemods" / "fixtures" / "noop_name_clash" / "input.py"


@pytest.fixture
def project(tmp_path):
    """A project with its own pyproject.toml: two Estimator programs in pkg/ and one in legacy/."""
    root = tmp_path / "project"
    for relative in ("pkg/train.py", "pkg/skip_me.py", "legacy/train.py"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(EXAMPLE, root / relative)
    return root


def configure(root, table: str) -> None:
    (root / "pyproject.toml").write_text(f'[project]\nname = "trainer"\n\n[tool.migrate]\n{table}\n')


def diff(*arguments, cwd=None) -> str:
    return run([MIGRATE, "rewrite", "--diff", *arguments], cwd=cwd).stdout


def test_config_is_found_from_a_subdirectory_and_flags_win(project):
    configure(project, 'target = "loop"\nexact = true')
    from_config = diff(project / "pkg" / "train.py")
    assert "CheckpointManager" in from_config and "BackupAndRestore" not in from_config
    assert "exact" in from_config  # the exact loop keeps the input's position and RNG
    keras = diff("--target", "keras", project / "pkg" / "train.py")
    assert "exact.ExactBackupAndRestore" in keras
    plain = diff("--target", "keras", "--no-exact", project / "pkg" / "train.py")
    assert "step_backup.BackupAndRestore" in plain and "exact." not in plain  # (steps counted by calls of any length)


def test_no_config_means_the_defaults(project):
    (project / "pyproject.toml").write_text('[project]\nname = "trainer"\n')
    assert "step_backup.BackupAndRestore" in diff(project / "pkg" / "train.py")


def test_config_exclude_leaves_files_alone_even_when_named(project):
    configure(project, 'exclude = ["legacy", "pkg/skip_*.py"]')
    before = {p: p.read_bytes() for p in project.rglob("*.py")}
    completed = run([MIGRATE, "rewrite", project])
    assert "1 files: 1 rewritten" in completed.stderr
    changed = {p.relative_to(project).as_posix() for p in before if p.read_bytes() != before[p]}
    assert changed == {"pkg/train.py"}
    # pre-commit passes files by name: an excluded one is still left alone
    named = run([MIGRATE, "rewrite", "--check", project / "legacy" / "train.py", project / "pkg" / "skip_me.py"])
    assert "0 files" in named.stderr


def test_exclude_flag_replaces_the_config_and_out_copies_excluded_files(project, tmp_path):
    configure(project, 'exclude = ["legacy"]')
    out = tmp_path / "out"
    run([MIGRATE, "rewrite", project, "--out", out, "--exclude", "skip_me.py"], cwd=project)
    assert b"BackupAndRestore" in (out / "legacy" / "train.py").read_bytes()  # the config's exclude replaced
    assert (out / "pkg" / "skip_me.py").read_bytes() == EXAMPLE.read_bytes()  # copied as it is
    assert b"BackupAndRestore" in (out / "pkg" / "train.py").read_bytes()


@pytest.mark.parametrize(
    "table, message",
    [
        ('target = "lop"', "target must be one of keras, loop, not 'lop'"),
        ("exact = 1", "exact must be true or false"),
        ('exclude = "legacy"', "exclude must be a list of glob patterns"),
        ("excludes = []", "has no key 'excludes'"),
        ("target = ", "cannot read it as TOML"),
    ],
)
def test_bad_config_is_one_line_naming_the_file(project, table, message):
    configure(project, table)
    before = (project / "pkg" / "train.py").read_bytes()
    completed = run([MIGRATE, "rewrite", project / "pkg"], check_codes=(2,))
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"migrate: error: {project / 'pyproject.toml'}: ")
    assert message in lines[0]
    assert (project / "pkg" / "train.py").read_bytes() == before


def test_paths_of_two_configured_projects_are_refused(project, tmp_path):
    configure(project, 'target = "loop"')
    other = tmp_path / "other"
    other.mkdir()
    configure(other, 'target = "keras"')
    completed = run([MIGRATE, "scan", project, other], check_codes=(2,))
    assert "different [tool.migrate] configurations" in completed.stderr


def test_json_lines(project):
    completed = run([MIGRATE, "scan", "--output-format", "json", project / "pkg" / "train.py", NAME_CLASH])
    records = [json.loads(line) for line in completed.stdout.splitlines()]
    statuses = {r["path"]: r["status"] for r in records if "status" in r}
    assert statuses == {str(project / "pkg" / "train.py"): "changed"}  # the clashing module stays unchanged
    findings = [r for r in records if "rule" in r]
    assert {r["rule"] for r in findings if r["path"] == str(NAME_CLASH)} == {"name-clash"}
    assert all(r["migrated"] for r in findings if r["path"] != str(NAME_CLASH))
    assert {"path", "rule", "line", "col", "migrated", "message"} <= set(findings[0])


def test_github_annotations_for_a_check(project):
    completed = run(
        [MIGRATE, "rewrite", "--check", "--output-format", "github", project / "pkg" / "train.py", NAME_CLASH],
        check_codes=(1,),
    )
    lines = completed.stdout.splitlines()
    assert f"::error file={project / 'pkg' / 'train.py'},title=migrate::" in lines[0]
    clash = [line for line in lines if line.startswith("::warning")]
    assert len(clash) == 1 and clash[0].startswith(f"::warning file={NAME_CLASH},line=4,col=1,title=migrate name-clash::")
    assert not any(line.startswith("::notice") for line in lines)  # rewrite shows what needs a person only


def test_quiet_prints_findings_but_no_summary():
    completed = run([MIGRATE, "rewrite", "--check", "--quiet", NAME_CLASH])
    assert "name-clash" in completed.stderr and "migrate:" not in completed.stderr


def test_diff_with_a_machine_format_is_a_usage_error():
    completed = run([MIGRATE, "rewrite", "--diff", "--output-format", "json", EXAMPLE], check_codes=(2,))
    assert "--diff prints the diff on stdout" in completed.stderr


@pytest.mark.slow
def test_pre_commit_hook(tmp_path):
    """`pre-commit try-repo` installs this repository as pre-commit would from its URL (its own virtualenv,
    the rewriter only) and runs the migrate-check hook on a repository with an Estimator program."""
    repo = tmp_path / "user_repo"
    repo.mkdir()
    shutil.copy2(EXAMPLE, repo / "train.py")
    (repo / "util.py").write_text("def add(a, b):\n    return a + b\n")
    environment = {**QUIET_TF, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "GIT_AUTHOR_NAME": "t",
                   "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
                   "GIT_COMMITTER_EMAIL": "t@example.com"}
    environment.pop("PYTHONPATH")
    pre_commit = MIGRATE.parent / "pre-commit"

    def git(*arguments):
        subprocess.run(["git", *arguments], cwd=repo, check=True, capture_output=True, env=environment)

    git("init", "-q")
    git("add", ".")

    def hook(*files):
        return subprocess.run([str(pre_commit), "try-repo", str(ROOT), "migrate-check", "--files", *files],
                              cwd=repo, capture_output=True, text=True, env=environment)

    failing = hook("train.py", "util.py")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "Failed" in failing.stdout and "1 would change" in failing.stdout
    passing = hook("util.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout
    assert (repo / "train.py").read_bytes() == EXAMPLE.read_bytes()  # a check writes nothing
    assert sorted(os.listdir(repo)) == [".git", "train.py", "util.py"]
