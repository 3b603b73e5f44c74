"""A Qt-free marker for texts that core describes and the window shows translated (a chart kind's name and
description, an export format's title): pyside6-lupdate files every `QT_TRANSLATE_NOOP("", "...")` it reads, in
any module, under the empty context, and the ui passes the text through tr() where it is drawn. The CLI and
core use the English text as it is, without Qt."""

from __future__ import annotations


def QT_TRANSLATE_NOOP(_context: str, text: str) -> str:
    return text
