"""One term per concept: the glossary that the checker, the lessons and the UI share.

Each entry names a concept, its English and Chinese term, and the other Chinese renderings that must not
appear (a reader who meets two names for one thing thinks they are two things). `tests/test_glossary.py`
holds every shipped text (lessons, messages, the Qt catalogue) to it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    concept: str
    en: str
    zh: str
    # Chinese renderings of the same concept that the shipped texts must not use
    zh_not: tuple[str, ...] = ()


TERMS: tuple[Term, ...] = (
    Term("bank", "bank", "bank", ("存储体",)),
    Term("bank conflict", "bank conflict", "bank 冲突", ("存储体冲突", "bank冲突", "库冲突")),
    Term("roofline", "roofline", "Roofline 模型", ("屋顶线模型", "屋顶线", "屋顶模型")),
    Term("coalesced access", "coalesced access", "合并访存", ("合并访问", "聚合访问")),
    Term("shared memory", "shared memory", "共享内存", ("共享存储器",)),
    Term("tile", "tile", "分块", ("瓦片",)),
    Term("thread block", "thread block", "线程块", ("线程区块",)),
    Term("register", "register", "寄存器", ()),
    Term("matrix multiplication", "matrix multiplication", "矩阵乘法", ("矩阵乘运算",)),
)


def term(concept: str) -> Term:
    """The glossary's entry for `concept` (KeyError names the concepts it knows)."""
    for t in TERMS:
        if t.concept == concept:
            return t
    raise KeyError(f"{concept!r} is not in the glossary: {', '.join(t.concept for t in TERMS)}")


def zh_violations(text: str) -> list[tuple[str, str]]:
    """(forbidden rendering, the glossary's term) for each rendering in `text` that the glossary rules out."""
    found = []
    for t in TERMS:
        for bad in t.zh_not:
            if bad in text:
                found.append((bad, t.zh))
    return found
