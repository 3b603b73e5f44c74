"""One `Registry` for every name-keyed registry of gemmviz: kernel variants, chart kinds, export formats, lesson
views, schedule kinds (core), and their drawings, renderers and writers (ui).

A registry is a read-only mapping from a key (a name; an export format's is (target, name)) to an entry, in the
order entries were first added. `add` refuses a second entry under a key, except, where the registry allows it,
a subclass of the entry there: the ui's class extending core's Qt-free description takes its place (and
`remove` puts the description back). `scratch` adds an entry for the length of a `with` block, which is how the
tests make an addition of each kind and run the suite's checks over it; `substitute` puts another entry in the
place of a registered one for a block (a test's broken copy of a shipped entry). Modules that register themselves are
found by name: `import_prefixed` (every module of a package with a prefix) and `import_if_present` (one module
looked for by an entry's name).
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from types import ModuleType
from typing import Any, Generic, TypeVar, cast

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


def _name_of(entry: Any) -> Hashable:
    return entry.name


class Registry(Mapping[K, T], Generic[K, T]):
    """Entries by key, in the order they were first added.

    `what` names an entry in messages ("chart kind"); `key` gives an entry's key (its `name` by default);
    with `replaces`, a subclass of a registered class, under its key, replaces it and keeps its place; `entries`
    are added first, in their order (a registry written as one literal, like the kernel variants)."""

    def __init__(
        self,
        what: str,
        key: Callable[[Any], Any] = _name_of,
        replaces: bool = False,
        entries: Iterable[T] = (),
    ) -> None:
        self.what = what
        self._key = key
        self._replaces = replaces
        self._entries: dict[K, T] = {}
        self._replaced: dict[int, T] = {}  # id(replacement) -> the entry it replaced
        for entry in entries:
            self.add(entry)

    # ---- the mapping ----
    def __getitem__(self, key: K) -> T:
        return self._entries[key]

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}: {', '.join(map(str, self._entries))})"

    def find(self, key: K) -> T:
        """The entry under `key`; KeyError naming the known keys otherwise."""
        try:
            return self._entries[key]
        except KeyError:
            known = ", ".join(map(str, self._entries)) or "none"
            raise KeyError(f"no {self.what} {key!r} (known: {known})") from None

    # ---- changing it ----
    def add(self, entry: T, key: K | None = None) -> T:
        """Register `entry` (under `key`, or its own); returns it, so `add` serves as a class decorator."""
        key = self._key(entry) if key is None else key
        known = self._entries.get(key)
        if known is not None:
            replacing = self._replaces and isinstance(entry, type) and isinstance(known, type)
            if not (replacing and issubclass(cast(type, entry), cast(type, known))):
                who = entry.__name__ if isinstance(entry, type) else type(entry).__name__
                raise ValueError(
                    f"{who}: a {self.what} called {key!r} is registered already (a key is registered twice only by "
                    "a subclass replacing its base)"
                )
            if known is not entry:
                self._replaced[id(entry)] = known
        self._entries[key] = entry  # a replacement keeps its base's place
        return entry

    def remove(self, entry_or_key: Any) -> None:
        """Remove an entry (given, or by its key); one that replaced another puts that one back. Removing what
        is not registered does nothing."""
        try:
            is_key = not isinstance(entry_or_key, type) and entry_or_key in self._entries
        except TypeError:  # an unhashable entry (a dataclass) is no key
            is_key = False
        if is_key:
            key = entry_or_key
        else:
            key = next((k for k, e in self._entries.items() if e is entry_or_key), None)
            if key is None:
                return
        entry = self._entries[key]
        base = self._replaced.pop(id(entry), None)
        if base is not None:
            self._entries[key] = base
        else:
            del self._entries[key]

    @contextlib.contextmanager
    def scratch(self, entry: T, key: K | None = None) -> Iterator[T]:
        """`entry` registered for the length of the block, then removed (a test's scratch addition)."""
        self.add(entry, key)
        try:
            yield entry
        finally:
            self.remove(entry if key is None else key)

    @contextlib.contextmanager
    def substitute(self, entry: T, key: K | None = None) -> Iterator[T]:
        """`entry` in the place of the entry registered under its key (or `key`) for the length of the block, then
        that one back where it was; KeyError naming the known keys if none is registered there."""
        key = self._key(entry) if key is None else key
        shipped = self.find(key)
        self._entries[key] = entry
        try:
            yield entry
        finally:
            self._entries[key] = shipped


def import_prefixed(package: ModuleType, prefix: str) -> tuple[str, ...]:
    """Import every module of `package` whose name starts with `prefix` (each registers itself); their names."""
    names = tuple(m.name for m in pkgutil.iter_modules(package.__path__) if m.name.startswith(prefix))
    for name in names:
        importlib.import_module(f"{package.__name__}.{name}")
    return names


def import_if_present(module: str) -> None:
    """Import `module` if it exists (a registry's entry looked for by name); an import error inside it is raised."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
