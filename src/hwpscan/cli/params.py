"""Command-line options declared once, as the fields of a frozen dataclass.

:func:`options_from_dataclasses` gives Typer a signature in which each dataclass-typed
parameter is replaced by the dataclass's fields (their ``typer.Option`` metadata and
defaults), and calls the command with the dataclass built from the parsed values. A
field typed with another such dataclass nests its options; a ``PANEL`` class variable
names the ``--help`` panel. Two parameters with one name are a ``ValueError`` when the
command is defined. With string annotations the dataclasses must be module-level names,
where ``typing.get_type_hints`` finds them.

>>> import dataclasses, typer
>>> from typer.testing import CliRunner
>>> @dataclasses.dataclass(frozen=True)
... class Greeting:
...     word: Annotated[str, typer.Option(help="What to say.")] = "hello"
...     loud: Annotated[bool, typer.Option("--loud", help="Shout it.")] = False
>>> demo = typer.Typer()
>>> @demo.command()
... @options_from_dataclasses
... def greet(name: str, *, greeting: Greeting) -> None:
...     text = f"{greeting.word} {name}"
...     print(text.upper() if greeting.loud else text)
>>> print(CliRunner().invoke(demo, ["Ada", "--word", "hi", "--loud"]).output.strip())
HI ADA
>>> print(CliRunner().invoke(demo, ["Ada"]).output.strip())
hello Ada
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any

import typer

# a doctest's dataclass resolves its string annotations here: ``typer``, ``Annotated``
_OptionInfo = typer.models.OptionInfo


_KEYWORD = inspect.Parameter.KEYWORD_ONLY


@dataclasses.dataclass(frozen=True)
class OptionGroup:
    """One dataclass parameter of a command and the options it contributes.

    A field whose type is itself a dataclass (not wrapped in ``Annotated``) is a nested
    group: its fields are options too, with their own defaults, and it is built first.

    >>> import typer
    >>> @dataclasses.dataclass(frozen=True)
    ... class Size:
    ...     width: int = 80
    ...     height: Annotated[int, typer.Option("--rows", "-r")] = 24
    >>> group = OptionGroup.of("size", Size)
    >>> [p.name for p in group.parameters], group.build({"width": 100, "height": 30})
    (['width', 'height'], Size(width=100, height=30))
    """

    name: str
    cls: type[Any]
    #: every option of the group, those of nested groups included, in field order
    parameters: tuple[inspect.Parameter, ...]
    #: the group's own option fields, and its nested groups
    own: tuple[str, ...] = ()
    nested: tuple[OptionGroup, ...] = ()

    @classmethod
    def of(cls, name: str, settings: type[Any]) -> OptionGroup:
        """The group for parameter *name* annotated with the dataclass *settings*."""
        hints = _hints(settings)
        parameters: list[inspect.Parameter] = []
        own: list[str] = []
        nested: list[OptionGroup] = []
        for f in dataclasses.fields(settings):
            if not f.init:
                continue
            if _is_dataclass_type(hints[f.name]):
                nested.append(cls.of(f.name, hints[f.name]))
                parameters.extend(nested[-1].parameters)
            else:
                own.append(f.name)
                default = _field_default(f)
                annotation = _in_panel(hints[f.name], getattr(settings, "PANEL", None))
                parameters.append(
                    inspect.Parameter(f.name, _KEYWORD, default=default, annotation=annotation)
                )
        return cls(name, settings, tuple(parameters), tuple(own), tuple(nested))

    def build(self, values: dict[str, Any]) -> Any:
        """The dataclass from the parsed values (taken out of *values*); a ``ValueError``
        from the dataclass's own checks is a usage error (exit 2)."""
        kwargs = {name: values.pop(name) for name in self.own}
        kwargs.update((group.name, group.build(values)) for group in self.nested)
        try:
            return self.cls(**kwargs)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None


def _in_panel(annotation: Any, panel: str | None) -> Any:
    """*annotation* with its option shown in the ``--help`` panel *panel* (the dataclass's
    ``PANEL``), unless the option names its own panel or is an argument.

    >>> import typer
    >>> shown = _in_panel(Annotated[int, typer.Option("--n")], "Budgets")
    >>> shown.__metadata__[0].rich_help_panel, shown.__origin__
    ('Budgets', <class 'int'>)
    >>> _in_panel(int, "Budgets").__metadata__[0].rich_help_panel
    'Budgets'
    """
    if panel is None:
        return annotation
    metadata = getattr(annotation, "__metadata__", None)
    if metadata is None:
        return Annotated[annotation, typer.Option(rich_help_panel=panel)]
    base = typing.get_args(annotation)[0]
    shown = []
    for item in metadata:
        own = item
        if isinstance(item, _OptionInfo) and item.rich_help_panel is None:
            own = copy.copy(item)
            own.rich_help_panel = panel
        shown.append(own)
    return Annotated[(base, *shown)]


def options_from_dataclasses(func: Callable[..., Any]) -> Callable[..., Any]:
    """Expand each dataclass-typed parameter of *func* into its fields, for Typer
    (apply it under ``@app.command()``)."""
    hints = _hints(func)
    groups: list[OptionGroup] = []
    expanded: list[inspect.Parameter] = []
    for param in inspect.signature(func).parameters.values():
        annotation = hints.get(param.name, param.annotation)
        if _is_dataclass_type(annotation):
            group = OptionGroup.of(param.name, annotation)
            groups.append(group)
            expanded.extend(group.parameters)
        else:
            expanded.append(param.replace(kind=_KEYWORD, annotation=annotation))

    @functools.wraps(func)
    def command(**values: Any) -> Any:
        built = {group.name: group.build(values) for group in groups}
        return func(**values, **built)

    returns = hints.get("return", inspect.Signature.empty)
    signature = inspect.Signature(expanded, return_annotation=returns)
    command.__signature__ = signature  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in expanded}
    if "return" in hints:
        command.__annotations__["return"] = returns
    return command


def _hints(obj: Any) -> dict[str, Any]:
    """Resolved annotations, ``Annotated`` kept; a name that does not resolve is a TypeError."""
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except NameError as exc:
        name = getattr(obj, "__qualname__", repr(obj))
        raise TypeError(f"{name}: cannot resolve the annotation: {exc}") from exc


def _is_dataclass_type(annotation: Any) -> bool:
    return isinstance(annotation, type) and dataclasses.is_dataclass(annotation)


def _field_default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return inspect.Parameter.empty
