"""The student's worst memory request beside the reference kernel's, for the Exercise tab's access view."""

from __future__ import annotations

from dataclasses import dataclass

from gemmviz.ui.accesses.panels import Panel
from gemmviz.ui.text import tr


@dataclass(frozen=True)
class NamedPanel(Panel):
    """A panel of the access views whose title is not a registry kernel's: the student's own."""

    name: str = ""

    @property
    def title(self) -> str:
        return self.name or super().title


def access_panels(kind: str, trace, reference: str) -> list[Panel]:
    """The student's worst request of `kind` beside the reference kernel's, from the shipped H200 records."""
    from gemmviz.core.hardware import accesses as acc

    def pick(t):  # the same kind of request on both sides: loads (a kernel without shared loads: any)
        if kind == "coalescing":
            return acc.worst_global_request(t, 0, False)
        found = acc.worst_shared_request(t, 0, False)
        return found if found is not None else acc.worst_shared_request(t, 0, None)

    panels: list[Panel] = []
    index = pick(trace)
    if index is not None:
        panels.append(NamedPanel(trace, index, tr("yours")))
    shipped = acc.shipped_file()
    theirs = shipped.find(reference) if shipped is not None else None
    if theirs is not None:
        other = pick(theirs)
        if other is not None:
            panels.append(Panel(theirs, other))
    return panels
