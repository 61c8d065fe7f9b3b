"""Unknown keyword arguments are refused with the accepted ones listed (issue 32).

Python's own TypeError names the unknown keyword only (``__init__() got an unexpected keyword
argument 'idle_timout'``), so a reader must open the docs to find the right spelling. Like
attrs and pydantic, the binding's public callables say which keywords they take, with the
closest one first when the name looks like a misspelling. The check runs before the call, so
nothing is created or changed when it refuses.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from typing import Any, Callable, Iterable, TypeVar

T = TypeVar("T")

_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def unknown_keyword_error(callable_name: str, given: Iterable[str], accepted: Iterable[str]) -> TypeError:
    """The TypeError for keywords outside ``accepted``: each unknown one named, the accepted
    ones listed (in signature order), and a close match suggested when there is one."""
    accepted = list(accepted)
    unknown = [name for name in given if name not in accepted]
    parts = []
    for name in unknown:
        close = difflib.get_close_matches(name, accepted, n=1)
        parts.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    noun = "keyword argument" if len(unknown) == 1 else "keyword arguments"
    takes = ", ".join(accepted) if accepted else "none"
    return TypeError(f"{callable_name} got an unexpected {noun} {', '.join(parts)}; it accepts: {takes}")


def keywords_of(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The names ``fn`` accepts as keywords, in order (``self`` and ``cls`` left out); empty for
    a callable that takes ``**kwargs`` (it judges its keywords itself)."""
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return ()
    return tuple(p.name for p in params if p.kind in _NAMED and p.name not in ("self", "cls"))


def strict_keywords(fn: Callable[..., T], callable_name: str) -> Callable[..., T]:
    """``fn`` wrapped so that an unknown keyword raises ``unknown_keyword_error`` before the call."""
    accepted = keywords_of(fn)
    if not accepted and any(p.kind is inspect.Parameter.VAR_KEYWORD
                            for p in inspect.signature(fn).parameters.values()):
        return fn
    allowed = frozenset(accepted)

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> T:
        if kwargs and not allowed.issuperset(kwargs):
            raise unknown_keyword_error(callable_name, kwargs, accepted)
        return fn(*args, **kwargs)

    checked.__strict_keywords__ = accepted  # type: ignore[attr-defined]
    return checked


def takes_options(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` has a parameter with a default (an option a caller names): only those are
    wrapped. A method of required arguments only (``activity(kind)``, ``lock()``) keeps Python's
    own TypeError, which names the keyword, and no wrapper: the wrapper's call would cost the
    activity hot path about 100 ns (the binding's budget is 1.3x a bare ctypes call)."""
    return any(p.default is not inspect.Parameter.empty for p in inspect.signature(fn).parameters.values())


def strict_class(cls: type) -> type:
    """The constructor, the class methods and the public methods of ``cls`` (its own and those
    inherited from the package's generated bases) that take options (``takes_options``) refuse
    unknown keywords. Properties are left alone."""
    for name in dir(cls):
        if name.startswith("_") and name != "__init__":
            continue
        for owner in cls.__mro__:
            if name in vars(owner):
                raw = vars(owner)[name]
                break
        else:
            continue
        if owner is object:
            continue
        shown = f"{cls.__name__}()" if name == "__init__" else f"{cls.__name__}.{name}()"
        if isinstance(raw, classmethod):
            setattr(cls, name, classmethod(strict_keywords(raw.__func__, shown)))
        elif isinstance(raw, staticmethod):
            setattr(cls, name, staticmethod(strict_keywords(raw.__func__, shown)))
        elif inspect.isfunction(raw) and not hasattr(raw, "__strict_keywords__") and (
                name == "__init__" or takes_options(raw)):
            setattr(cls, name, strict_keywords(raw, shown))
    return cls
