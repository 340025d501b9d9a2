"""The ``--help`` screens and the boxed option errors, laid out line by line over rich text.

The framework's own help renderer loads a Markdown parser, a syntax highlighter and a
traceback formatter before it prints a line (about 0.2 s of every ``--help``), then
measures every cell of its tables several times; this one lays the lines out itself with
rich's text wrapping and needs only the console and text modules. The layout is the
familiar one: usage, the command's prose, an Arguments and an Options panel (one more per
named panel), the commands by panel for the group, then the epilog (Examples,
Environment, Exit codes). Where the help column would be narrower than 32 cells (scan's
options on an 80-column terminal), each option's help moves under its name.
Off a terminal the text is plain; on one, names, placeholders and borders are coloured.

Names, placeholders and help come from the click objects as the framework built them
(:mod:`hwpscan.cli.app` has already made the placeholders readable); the commands of the
group come from :data:`hwpscan.cli.COMMAND_TABLE` unless their module is loaded.
"""

from __future__ import annotations

import inspect
import io
import sys
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.highlighter import RegexHighlighter
from rich.markup import escape
from rich.text import Text
from rich.theme import Theme

__all__ = ["CommandLine", "help_text", "print_error"]

#: (name, panel, one-line help) of a command in the group's listing.
CommandLine = tuple[str, str, str]

_THEME = Theme(
    {
        "option": "bold cyan",
        "switch": "bold green",
        "metavar": "bold yellow",
        "usage": "yellow",
        "command": "bold cyan",
        "border": "dim",
        "extra": "dim",
    }
)


class _OptionNames(RegexHighlighter):
    """``--long`` and ``-s`` in prose, as in the option table."""

    highlights = [  # noqa: RUF012  (the base class declares it as a plain attribute)
        r"(?<![\w-])(?P<option>--[\w-]+)",
        r"(?<![\w-])(?P<switch>-\w)(?![\w-])",
        r"^(?P<usage>Usage:) ",
        r"(?P<extra>\[(?:default|env var): [^\]]*\]|\[required\])",
    ]


_HIGHLIGHT = _OptionNames()


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):
        return False


class _Page:
    """Lines of styled text at the terminal's width (``COLUMNS`` wins; 80 without one)."""

    def __init__(self, *, stderr: bool = False) -> None:
        stream = sys.stderr if stderr else sys.stdout
        self.colour = _isatty(stream)
        self.console = Console(
            file=io.StringIO(), theme=_THEME, highlight=False, force_terminal=self.colour
        )
        self.width = max(self.console.width, 30)
        encoding = (getattr(stream, "encoding", None) or "utf-8").lower()
        self.box = tuple("╭─╮│╰╯" if encoding.startswith("utf") else "+-+|++")
        self.lines: list[Text] = []

    def wrap(self, text: Text, width: int) -> list[Text]:
        """*text* broken into lines of at most *width* cells (long words folded)."""
        lines = list(text.wrap(self.console, max(width, 1), overflow="fold"))
        return lines or [Text("")]

    def blank(self) -> None:
        self.lines.append(Text(""))

    def indented(self, text: Text, indent: int = 1) -> None:
        for line in self.wrap(text, self.width - 2 * indent):
            self.lines.append(Text(" " * indent) + line)

    def panel(self, title: str, body: Sequence[Text]) -> None:
        tl, h, tr, v, bl, br = self.box
        inner = self.width - 4
        rule = h * max(self.width - cell_len(title) - 5, 1)
        self.lines.append(Text.assemble((f"{tl}{h} ", "border"), title, (f" {rule}{tr}", "border")))
        for line in body:
            pad = " " * max(inner - line.cell_len, 0)
            self.lines.append(Text.assemble((f"{v} ", "border"), line, pad, (f" {v}", "border")))
        self.lines.append(Text(f"{bl}{h * (self.width - 2)}{br}", style="border"))

    def text(self) -> str:
        if not self.colour:
            return "".join(line.plain.rstrip() + "\n" for line in self.lines)
        page = Text("\n").join(self.lines)
        self.console.print(page, soft_wrap=True)
        out = self.console.file
        assert isinstance(out, io.StringIO)
        return out.getvalue()


def _markup(text: str, style: str = "") -> Text:
    return _HIGHLIGHT(Text.from_markup(text, style=style, emoji=False))  # no emoji table


def _paragraphs(text: str) -> list[str]:
    """The help's paragraphs without the source's line breaks (``\\b`` keeps them)."""
    text = inspect.cleandoc(text).partition("\f")[0]
    out = []
    for para in text.split("\n\n"):
        if para.startswith("\b"):
            out.append(para.lstrip("\b\n"))
        else:
            out.append(" ".join(line.strip() for line in para.splitlines()))
    return out


def _prose(page: _Page, command: Any) -> None:
    """The command's first paragraph, then the rest dimmed."""
    if not command.help:
        return
    first, *rest = _paragraphs(command.help)
    page.indented(_markup(first))
    if rest:
        page.blank()
        page.indented(_markup("\n\n".join(rest), style="dim"))
    page.blank()


def _names(param: Any) -> tuple[Text, Text]:
    """(long names, short names) of an option; an argument's placeholder as its name."""
    if param.param_type_name == "argument":
        name = param.metavar or param.name.upper()
        if param.metavar is None and param.nargs != 1:
            name += "..."
        return Text(name, style="metavar"), Text("")
    long = [o for o in param.opts if o.startswith("--")]
    short = [o for o in param.opts if not o.startswith("--")]
    second_long = [o for o in param.secondary_opts if o.startswith("--")]
    short += [o for o in param.secondary_opts if not o.startswith("--")]
    names = Text(", ".join(long), style="option")
    if second_long:  # --progress / --no-progress: the second spelling under the first
        names.append("\n" + ", ".join(second_long), style="option")
    return names, Text(", ".join(short), style="switch")


def _placeholder(param: Any, ctx: Any) -> Text:
    """What to type after the option (``N``, ``PATH``, ``a|b``), with its range."""
    if param.param_type_name == "argument":
        return Text("")
    shown = getattr(param, "display_type_rich", None)
    metavar = shown(ctx) if callable(shown) else param.make_metavar(ctx)
    text = Text(metavar or "", style="metavar")
    ranged = getattr(param, "_get_number_range_help_str", None)
    where = ranged() if callable(ranged) else None
    if where:
        text.append(f" [{where}]", style="extra")
    return text


def _default(param: Any, ctx: Any) -> str:
    """The ``[default: ...]`` text the framework would show, or ''."""
    extract = getattr(param, "_extract_default_help_str", None)
    describe = getattr(param, "_get_default_string", None)
    if not callable(extract) or not callable(describe):
        return ""
    value = extract(ctx=ctx)
    as_text = isinstance(param.show_default, str)
    if not as_text and (value is None or not (param.show_default or ctx.show_default)):
        return ""
    shown = describe(ctx=ctx, show_default_is_str=as_text, default_value=value)
    return str(shown or "")


def _param_help(param: Any, ctx: Any) -> Text:
    """The option's help, then its environment variable, default and "required"."""
    parts = []
    if getattr(param, "help", None):
        parts.append("\n".join(_paragraphs(param.help)))
    envvar = getattr(param, "envvar", None)
    if envvar and getattr(param, "show_envvar", False):
        names = envvar if isinstance(envvar, str) else ", ".join(envvar)
        parts.append(escape(f"[env var: {names}]"))
    default = _default(param, ctx)
    if default:
        parts.append(escape(f"[default: {default}]"))
    if param.required:
        parts.append(escape("[required]"))
    return _markup(" ".join(parts))


#: Widest a placeholder column gets before it wraps; narrowest the help column may be
#: beside the names before the help moves under them.
_PLACEHOLDER_MAX, _HELP_MIN = 26, 32  # the widest: table|json|jsonl|csv|junit


def _grid(page: _Page, rows: Sequence[Sequence[Text]], width: int) -> list[Text]:
    """Rows of cells as lines: every column but the last as wide as its widest cell."""
    columns = list(zip(*rows, strict=True))
    widths = [max(max(cell_len(x) for x in c.plain.split("\n")) for c in col) for col in columns]
    widths[-2] = min(widths[-2], _PLACEHOLDER_MAX) if len(widths) > 2 else widths[-2]
    keep = [i for i, w in enumerate(widths[:-1]) if w] + [len(widths) - 1]
    fixed = sum(widths[i] + 2 for i in keep[:-1])
    stacked = width - fixed < _HELP_MIN
    lines: list[Text] = []
    for row in rows:
        if stacked:  # names on a line, the help under them
            head = Text("  ").join(row[i] for i in keep[:-1] if row[i].plain)
            lines += page.wrap(head, width)
            lines += [Text("    ") + line for line in page.wrap(row[-1], width - 4)]
            continue
        cells = [page.wrap(row[i], widths[i]) for i in keep[:-1]]
        cells.append(page.wrap(row[-1], width - fixed))
        for n in range(max(len(c) for c in cells)):
            parts = [Text("")]
            for i, cell in zip(keep, cells, strict=True):
                piece = cell[n] if n < len(cell) else Text("")
                pad = " " * (widths[i] - piece.cell_len + 2) if i != keep[-1] else ""
                parts += [piece, Text(pad)]
            lines.append(Text("").join(parts))
    return lines


def _param_panels(page: _Page, command: Any, ctx: Any) -> None:
    """Arguments first, then Options, then any named panels, in order of appearance."""
    panels: dict[tuple[int, str], list[Any]] = {}
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        is_argument = param.param_type_name == "argument"
        default_title = "Arguments" if is_argument else "Options"
        title = getattr(param, "rich_help_panel", None) or default_title
        rank = (0 if is_argument else 2) + (title != default_title)
        panels.setdefault((rank, title), []).append(param)
    for (_, title), params in sorted(panels.items(), key=lambda item: item[0][0]):
        rows = []
        for param in params:
            long, short = _names(param)
            required = Text("*" if param.required else "", style="red")
            rows.append([required, long, short, _placeholder(param, ctx), _param_help(param, ctx)])
        page.panel(title, _grid(page, rows, page.width - 4))


def _command_panels(page: _Page, commands: Sequence[CommandLine]) -> None:
    width = max((len(name) for name, _, _ in commands), default=0)
    for title in dict.fromkeys(panel for _, panel, _ in commands):
        rows = [
            [Text(name.ljust(width), style="command"), _markup(summary)]
            for name, panel, summary in commands
            if panel == title
        ]
        page.panel(title or "Commands", _grid(page, rows, page.width - 4))


def help_text(command: Any, ctx: Any, commands: Sequence[CommandLine] = ()) -> str:
    """The whole ``--help`` of *command* (a group lists *commands*), as printable text."""
    page = _Page()
    page.blank()
    page.indented(_HIGHLIGHT(Text(command.get_usage(ctx), style="bold")))
    page.blank()
    _prose(page, command)
    _param_panels(page, command, ctx)
    _command_panels(page, commands)
    if command.epilog:
        page.blank()
        for line in Text.from_markup(command.epilog, emoji=False).split("\n"):
            page.indented(line)
    page.blank()
    return page.text()


def print_error(exc: Any) -> None:
    """A bad option or argument on a terminal: usage, where to get help, the message boxed."""
    page = _Page(stderr=True)
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        page.lines.append(_HIGHLIGHT(Text(ctx.get_usage(), style="bold")))
        if ctx.command.get_help_option(ctx) is not None:
            hint = f"Try [blue]'{escape(ctx.command_path)} {ctx.help_option_names[0]}'[/] for help."
            page.lines.append(Text.from_markup(hint, style="dim", emoji=False))
    message = _HIGHLIGHT(Text(exc.format_message()))
    page.panel("Error", page.wrap(message, page.width - 4))
    sys.stderr.write(page.text())
