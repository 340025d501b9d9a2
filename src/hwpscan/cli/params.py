"""Command-line options declared once, as the fields of a frozen dataclass.

:func:`options_from_dataclasses` gives Typer a signature in which each dataclass-typed
parameter is replaced by the dataclass's fields (their ``typer.Option`` metadata and
defaults), and calls the command with the dataclass built from the parsed values. A
field typed with another such dataclass nests its options; a ``PANEL`` class variable
names the ``--help`` panel. Two parameters wanting one name or option string is an
error when the command is defined. With string annotations the dataclasses must be
module-level names, where ``typing.get_type_hints`` finds them.

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
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import typer

# a doctest's dataclass resolves its string annotations here: ``typer``, ``Annotated``
_OptionInfo = typer.models.OptionInfo
_ParameterInfo = typer.models.ParameterInfo


_KEYWORD = inspect.Parameter.KEYWORD_ONLY


@dataclasses.dataclass(frozen=True)
class OptionGroup:
    """One dataclass parameter of a command and the options it contributes.

    A field whose type is itself a dataclass (not wrapped in ``Annotated``) is a nested
    group: its fields are options too, and it is built first. Its options' defaults are
    its own fields' defaults, so the outer field may have no other default.

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
                _check_nested_default(settings, f, hints[f.name])
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
        """The dataclass from the parsed values (taken out of *values*).

        A ``ValueError`` from the dataclass's own checks is a usage error (exit 2).

        >>> @dataclasses.dataclass(frozen=True)
        ... class Limit:
        ...     n: int = 1
        ...     def __post_init__(self) -> None:
        ...         if self.n < 1:
        ...             raise ValueError("n must be >= 1")
        >>> try:
        ...     OptionGroup.of("limit", Limit).build({"n": 0})
        ... except typer.BadParameter as exc:
        ...     print(exc.format_message())
        Invalid value: n must be >= 1
        """
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
    (apply it under ``@app.command()``); other parameters pass as they are.

    ``TypeError`` at decoration when two parameters share a name or an option string,
    or *func* takes ``*args``, ``**kwargs`` or positional-only parameters.
    """
    hints = _hints(func)
    groups: list[OptionGroup] = []
    expanded: list[inspect.Parameter] = []
    for param in inspect.signature(func).parameters.values():
        _check_kind(func, param)
        annotation = hints.get(param.name, param.annotation)
        if _is_dataclass_type(annotation):
            group = OptionGroup.of(param.name, annotation)
            groups.append(group)
            expanded.extend(group.parameters)
        else:
            expanded.append(param.replace(kind=_KEYWORD, annotation=annotation))
    _check_clashes(func, expanded)

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


def _check_nested_default(outer: type[Any], f: dataclasses.Field[Any], inner: type[Any]) -> None:
    """A nested group's field may default only to the nested dataclass's own defaults."""
    default = _field_default(f)
    if default is inspect.Parameter.empty:
        return
    try:
        if default == inner():
            return
    except TypeError:  # the nested dataclass has required fields: any default is ignored
        pass
    raise TypeError(
        f"{outer.__qualname__}.{f.name}: a nested option group takes its defaults from"
        f" {inner.__qualname__}'s fields; its own default {default!r} would be ignored"
    )


def _check_kind(func: Callable[..., Any], param: inspect.Parameter) -> None:
    if param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
        return
    raise TypeError(
        f"{func.__qualname__}: parameter {param.name!r} must be an ordinary or"
        " keyword-only parameter to become an option"
    )


def _check_clashes(func: Callable[..., Any], params: list[inspect.Parameter]) -> None:
    """Each Python name and each option string belongs to one parameter only."""
    owner: dict[str, str] = {}
    for param in params:
        if param.name in owner:
            raise TypeError(f"{func.__qualname__}: two parameters are named {param.name!r}")
        owner[param.name] = param.name
    seen: dict[str, str] = {}
    for param in params:
        for flag in _flags(param):
            if flag in seen:
                raise TypeError(
                    f"{func.__qualname__}: {seen[flag]!r} and {param.name!r} both claim {flag}"
                )
            seen[flag] = param.name


def _flags(param: inspect.Parameter) -> Iterator[str]:
    """The option strings Typer will give *param* (none for an argument).

    >>> import typer
    >>> def flags(annotation: Any) -> list[str]:
    ...     return list(_flags(inspect.Parameter("dry_run", _KEYWORD, annotation=annotation)))
    >>> flags(Annotated[bool, typer.Option("--dry-run/--for-real", "-n")])
    ['--dry-run', '--for-real', '-n']
    >>> flags(Annotated[bool, typer.Option(help="x")]), flags(Annotated[str, typer.Argument()])
    (['--dry-run', '--no-dry-run'], [])
    >>> flags(Annotated[int, typer.Option(help="x")]), flags(str)
    (['--dry-run'], [])
    """
    info = _option_info(param)
    if info is None:
        return
    for decl in _declarations(param, info):
        yield from (part for part in decl.split("/") if part.startswith("-"))


def _option_info(param: inspect.Parameter) -> Any:
    """The ``typer.Option`` of *param*, a bare one for a plain option, None for an argument."""
    metadata = getattr(param.annotation, "__metadata__", ())
    info = next((m for m in metadata if isinstance(m, _ParameterInfo)), None)
    if info is None:
        # Typer makes a plain parameter an option when it has a default
        return None if param.default is inspect.Parameter.empty else _OptionInfo()
    return info if isinstance(info, _OptionInfo) else None


def _declarations(param: inspect.Parameter, info: Any) -> list[str]:
    """The option declarations as written, or the ones Typer derives from the name."""
    # inside Annotated, Option's first positional (its "default") is the first option name
    first = (info.default,) if isinstance(info.default, str) else ()
    decls = [*first, *(info.param_decls or ())]
    if decls:
        return decls
    long = "--" + param.name.replace("_", "-")
    is_bool = param.annotation is bool or typing.get_args(param.annotation)[:1] == (bool,)
    return [f"{long}/--no-{long[2:]}" if is_bool else long]
