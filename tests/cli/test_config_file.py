"""Option defaults from the user config file and pyproject.toml's [tool.hwpscan]:
real files in temporary folders, read through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.cli.config_file import ConfigFiles, nearest_pyproject, user_config_path
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx

runner = CliRunner()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.hwpx").write_bytes(build_hwpx(["본문"]))
    (folder / "b.hwp").write_bytes(b"not an HWP file at all")  # unreadable
    return folder


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder with a subfolder as the current folder."""
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    monkeypatch.chdir(root / "sub")
    return root


@pytest.fixture
def user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "user" / "config.toml"
    path.parent.mkdir()
    monkeypatch.setenv("HWPSCAN_CONFIG", str(path))
    return path


def _scan(docs: Path, *args: str) -> object:
    return runner.invoke(app, ["scan", str(docs), "--no-progress", *args])


def test_the_user_file_is_named_by_the_variable_else_in_the_config_folder(
    user_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert user_config_path() == user_file
    monkeypatch.delenv("HWPSCAN_CONFIG")
    assert user_config_path().name == "config.toml"
    assert "hwpscan" in user_config_path().parts


def test_the_nearest_pyproject_is_found_upwards(project: Path) -> None:
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert nearest_pyproject() == project / "pyproject.toml"
    assert ConfigFiles.load().project_path is None  # no [tool.hwpscan]: nothing from it


def test_pyproject_gives_a_command_its_defaults(project: Path, docs: Path, user_file: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.hwpscan.scan]\nformat = "jsonl"\nfail-on = ["unreadable"]\n', encoding="utf-8"
    )
    done = _scan(docs)
    assert done.exit_code == 1, done.output  # --fail-on unreadable, from the file
    assert json.loads(done.stdout.splitlines()[0])["path"].endswith("a.hwpx")
    typed = _scan(docs, "--format", "csv", "--fail-on", "contaminated")
    assert typed.exit_code == 0 and typed.stdout.lstrip("\ufeff").startswith("path,")


def test_precedence_command_line_env_pyproject_user_file(
    project: Path, user_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_file.write_text('api_url = "http://127.0.0.1:1/user"\n', encoding="utf-8")

    monkeypatch.setenv("HWPSCAN_API_KEY", "0123456789abcdef0123456789abcdef")
    out = project / "downloads"

    def called(*args: str) -> str:
        """The endpoint the fetch called (nothing listens there: its error names it)."""
        done = runner.invoke(app, ["fetch", "--from", "2025-07-21", "--to", "2025-07-21",
                                   "--out", str(out), "--retries", "0", "--api-retries", "0",
                                   "--no-progress", *args])  # fmt: skip
        assert done.exit_code == 3, done.output
        return done.stderr.split("calling ")[1].split(" for ")[0]

    assert called() == "127.0.0.1:1/user"
    (project / "pyproject.toml").write_text(
        '[tool.hwpscan]\napi_url = "http://127.0.0.1:1/project"\n', encoding="utf-8"
    )
    assert called() == "127.0.0.1:1/project"
    monkeypatch.setenv("HWPSCAN_API_URL", "http://127.0.0.1:1/env")
    assert called() == "127.0.0.1:1/env"
    assert called("--api-url", "http://127.0.0.1:1/typed") == "127.0.0.1:1/typed"


def test_shared_settings_go_to_every_command_that_takes_them(
    project: Path, docs: Path, user_file: Path
) -> None:
    user_file.write_text("jobs = 1\nfile_timeout = 30\n", encoding="utf-8")
    done = runner.invoke(app, ["scan", str(docs), "--no-progress", "-f", "json"])
    assert done.exit_code == 0, done.output
    run = runner.invoke(app, ["history", "--format", "json"])
    args = json.loads(run.stdout)["runs"][0]["args"]
    assert args["jobs"] == 1 and args["file_timeout"] == 30


def test_a_key_in_pyproject_is_refused_naming_the_file(project: Path, docs: Path) -> None:
    path = project / "pyproject.toml"
    path.write_text('[tool.hwpscan]\napi_key = "0123456789abcdef0123456789abcdef"\n', "utf-8")
    done = _scan(docs)
    assert done.exit_code == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "api_key" in lines[0]
    assert "0123456789abcdef" not in done.output


def test_an_unknown_key_is_a_warning_naming_the_file_and_key(
    project: Path, docs: Path, user_file: Path
) -> None:
    user_file.write_text('colour = "red"\napi_key = "k"\n[scan]\nshout = true\n', "utf-8")
    (project / "pyproject.toml").write_text("[tool.hwpscan.nosuch]\nx = 1\n", "utf-8")
    done = _scan(docs)
    assert done.exit_code == 0, done.output
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert any(str(user_file) in w and "colour" in w for w in warnings)
    assert any(str(user_file) in w and "scan.shout" in w for w in warnings)
    assert any(str(user_file) in w and "api_key is not read" in w for w in warnings)
    assert any("pyproject.toml" in w and "tool.hwpscan.nosuch" in w for w in warnings)


@pytest.mark.parametrize(
    "text", ["jobs = [\n", 'jobs = "four"\n', "[tool.hwpscan]\njobs = 'x'\n", "a = 1\na = 2\n"]
)
def test_a_malformed_file_is_one_error_line_and_exit_2(
    project: Path, docs: Path, user_file: Path, text: str
) -> None:
    target = project / "pyproject.toml" if text.startswith("[tool") else user_file
    target.write_text(text, encoding="utf-8")
    done = _scan(docs)
    assert done.exit_code == 2, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(target) in lines[0]


def test_the_order_is_written_in_help() -> None:
    for args in ([], ["scan"]):
        shown = runner.invoke(app, [*args, "--help"], env={"COLUMNS": "100"}).stdout
        flat = " ".join(shown.split())
        assert "first found wins: the command line, the environment," in flat
        assert "[tool.hwpscan] in the nearest pyproject.toml, the config file, defaults" in flat
        assert "HWPSCAN_CONFIG" in flat


def test_the_state_folders_key_file_as_config_gives_no_key_warning(
    tmp_path: Path, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the config folder is the state folder (macOS), the key file is the config
    file: its api_key is the key reader's, not an unknown setting."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('api_key = "k"\njobs = 1\n', encoding="utf-8")
    monkeypatch.setenv("HWPSCAN_HOME", str(home))
    monkeypatch.setenv("HWPSCAN_CONFIG", str(home / "config.toml"))
    done = _scan(docs)
    assert done.exit_code == 0, done.output
    assert "warning:" not in done.stderr
