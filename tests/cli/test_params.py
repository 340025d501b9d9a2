"""Options declared as dataclass fields (hwpscan.cli.params), through a real Typer app."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from typing import Annotated, ClassVar

import pytest
import typer
from typer.testing import CliRunner

from hwpscan.cli.params import OptionGroup, options_from_dataclasses

runner = CliRunner()


@dataclasses.dataclass(frozen=True)
class Network:
    timeout: Annotated[float, typer.Option(min=0, help="Seconds per request.")] = 10.0
    retries: Annotated[int, typer.Option("--retries", "-r", help="Attempts.")] = 3
    limit: Annotated[int | None, typer.Option(min=0, callback=lambda v: v or None)] = 30
    follow: Annotated[bool, typer.Option("--follow/--no-follow", help="Redirects.")] = True


@dataclasses.dataclass(frozen=True)
class Output:
    out: Annotated[Path, typer.Option(help="Where to write.")] = Path("out")
    tags: Annotated[list[str], typer.Option("--tag", help="Labels.")] = dataclasses.field(
        default_factory=list
    )
    plain: int = 7  # no typer metadata: an option like a plain parameter with a default

    def __post_init__(self) -> None:
        if self.plain < 0:
            raise ValueError("plain must be >= 0")


def _app(command: object) -> typer.Typer:
    app = typer.Typer()
    app.command()(command)  # type: ignore[arg-type]
    return app


def test_groups_and_plain_parameters_are_parsed_into_dataclasses() -> None:
    seen: list[tuple[object, ...]] = []

    @options_from_dataclasses
    def get(
        ctx: typer.Context,
        url: Annotated[str, typer.Argument(help="What to get.")],
        network: Network,
        *,
        verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
        output: Output,
    ) -> None:
        seen.append((ctx.info_name, url, network, verbose, output))

    argv = ["http://x", "--timeout", "2.5", "-r", "5", "--limit", "0", "--no-follow"]
    result = runner.invoke(_app(get), [*argv, "-v", "--out", "o", "--tag", "a", "--tag", "b"])
    assert result.exit_code == 0, result.output
    network = Network(timeout=2.5, retries=5, limit=None, follow=False)
    assert seen == [("get", "http://x", network, True, Output(Path("o"), ["a", "b"], 7))]


def test_defaults_come_from_the_dataclass_fields() -> None:
    seen: list[tuple[Network, Output]] = []

    @options_from_dataclasses
    def get(network: Network, output: Output) -> None:
        seen.append((network, output))

    result = runner.invoke(_app(get), [])
    assert result.exit_code == 0, result.output
    assert seen == [(Network(), Output())]
    assert seen[0][1].tags == [] and seen[0][1].tags is not Output().tags


def test_help_shows_every_field_with_its_help_and_default() -> None:
    @options_from_dataclasses
    def get(network: Network, output: Output) -> None:
        pass

    result = runner.invoke(_app(get), ["--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    for text in ("--timeout", "Seconds per request.", "--retries", "-r", "--no-follow"):
        assert text in result.output
    for text in ("--limit", "--out", "--tag", "Labels.", "--plain", "[default: 10.0]"):
        assert text in result.output


def test_the_signature_typer_sees_is_the_fields_in_place_of_the_group() -> None:
    @options_from_dataclasses
    def get(url: str, network: Network, *, verbose: bool = False) -> int:
        return 0

    params = inspect.signature(get).parameters
    assert list(params) == ["url", "timeout", "retries", "limit", "follow", "verbose"]
    assert params["retries"].default == 3 and params["url"].default is inspect.Parameter.empty
    assert params["timeout"].annotation.__metadata__[0].help == "Seconds per request."
    assert get.__annotations__["return"] is int and get.__annotations__["url"] is str


def test_a_value_the_dataclass_refuses_is_a_usage_error() -> None:
    @options_from_dataclasses
    def get(output: Output) -> None:
        raise AssertionError("not reached")

    result = runner.invoke(_app(get), ["--plain", "-1"])
    assert result.exit_code == 2
    assert "plain must be >= 0" in result.output


def test_typer_range_checks_still_apply_to_fields() -> None:
    @options_from_dataclasses
    def get(network: Network) -> None:
        raise AssertionError("not reached")

    result = runner.invoke(_app(get), ["--timeout", "-1"])
    assert result.exit_code == 2


@dataclasses.dataclass(frozen=True)
class Needs:
    name: Annotated[str, typer.Option(help="Who.")]


def test_a_field_without_default_is_required() -> None:
    seen: list[Needs] = []

    @options_from_dataclasses
    def get(needs: Needs) -> None:
        seen.append(needs)

    assert runner.invoke(_app(get), []).exit_code == 2
    assert runner.invoke(_app(get), ["--name", "Ada"]).exit_code == 0
    assert seen == [Needs("Ada")]


@dataclasses.dataclass(frozen=True)
class Again:
    retries: int = 1


def test_a_field_name_used_twice_is_an_error_at_definition() -> None:
    with pytest.raises(ValueError, match="duplicate parameter name: 'retries'"):

        @options_from_dataclasses
        def get(network: Network, again: Again) -> None:
            pass

    with pytest.raises(ValueError, match="'timeout'"):

        @options_from_dataclasses
        def get2(timeout: int, network: Network) -> None:
            pass


def test_no_command_of_the_app_gives_an_option_string_twice() -> None:
    """Typer would let the later option silently take the string; none of ours does."""
    from collections import Counter

    import typer.main

    from hwpscan.cli import app

    group = typer.main.get_command(app)
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        ctx = typer.Context(command, info_name=name)
        strings = [s for p in command.get_params(ctx) for s in (*p.opts, *p.secondary_opts)]
        assert [s for s, n in Counter(strings).items() if n > 1] == [], name


def test_an_annotation_that_does_not_resolve_names_the_command() -> None:
    """With string annotations a dataclass must be importable from the module (not local)."""

    def get(network: Missing) -> None:  # type: ignore[name-defined]  # noqa: F821
        pass

    with pytest.raises(TypeError, match="get: cannot resolve the annotation"):
        options_from_dataclasses(get)


@dataclasses.dataclass(frozen=True)
class Retry:
    attempts: Annotated[int, typer.Option(min=1, help="Tries per request.")] = 3
    backoff: Annotated[float, typer.Option(help="Seconds, doubled per retry.")] = 1.0


@dataclasses.dataclass(frozen=True)
class Fetch:
    days: Annotated[int, typer.Option(help="Days per call.")] = 21
    retry: Retry = dataclasses.field(default_factory=Retry)


def test_a_dataclass_field_nests_its_options() -> None:
    seen: list[Fetch] = []

    @options_from_dataclasses
    def get(fetch: Fetch) -> None:
        seen.append(fetch)

    assert list(inspect.signature(get).parameters) == ["days", "attempts", "backoff"]
    assert runner.invoke(_app(get), ["--attempts", "5", "--days", "7"]).exit_code == 0
    assert runner.invoke(_app(get), []).exit_code == 0
    assert seen == [Fetch(7, Retry(5, 1.0)), Fetch()]
    assert runner.invoke(_app(get), ["--attempts", "0"]).exit_code == 2


def test_option_group_lists_init_fields_only() -> None:
    @dataclasses.dataclass(frozen=True)
    class Derived:
        base: int = 2
        double: int = dataclasses.field(init=False, default=0)

        def __post_init__(self) -> None:
            object.__setattr__(self, "double", self.base * 2)

    group = OptionGroup.of("derived", Derived)
    assert [p.name for p in group.parameters] == ["base"]
    assert group.build({"base": 5, "other": 1}).double == 10


@dataclasses.dataclass(frozen=True)
class Budget:
    """A group with a --help panel of its own."""

    PANEL: ClassVar[str] = "Budgets"

    max_files: Annotated[int, typer.Option(min=1, help="Files at most.")] = 10
    max_mb: float = 5.0  # no metadata: still shown in the group's panel
    note: Annotated[str, typer.Option(help="Elsewhere.", rich_help_panel="Notes")] = ""


def test_a_group_shows_its_options_in_its_panel_unless_one_names_its_own() -> None:
    @options_from_dataclasses
    def run(*, budget: Budget) -> None:
        print(budget.max_files, budget.max_mb, budget.note)

    app = _app(run)
    out = runner.invoke(app, ["--help"], env={"COLUMNS": "100"}).output
    budgets = out.split("╭─ Budgets")[1].split("╰")[0]
    notes = out.split("╭─ Notes")[1].split("╰")[0]
    assert "--max-files" in budgets and "--max-mb" in budgets and "--note" not in budgets
    assert "--note" in notes
    done = runner.invoke(app, ["--max-files", "3", "--max-mb", "1.5", "--note", "x"])
    assert done.exit_code == 0 and done.output.split() == ["3", "1.5", "x"]
