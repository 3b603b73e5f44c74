"""Fill assets/i18n/gemmviz_zh_CN.ts from a table of translations (a Python file defining ZH = {source: text}),
so that pyside6-lupdate stays the one tool that finds the strings: lupdate, fill, lrelease (see docs/guide/teaching.md).

    python tools/fill_ts.py assets/i18n/gemmviz_zh_CN.ts tools/zh_CN.py

Messages without an entry are left unfinished and listed."""

from __future__ import annotations

import runpy
import sys
import xml.etree.ElementTree as ET


def main(ts_path: str, table_path: str) -> int:
    table = runpy.run_path(table_path)["ZH"]
    tree = ET.parse(ts_path)
    missing = []
    for message in tree.getroot().iter("message"):
        source = message.find("source").text or ""
        translation = message.find("translation")
        if source in table:
            translation.text = table[source]
            translation.attrib.pop("type", None)
        else:
            missing.append(source)
    tree.write(ts_path, encoding="utf-8", xml_declaration=True)
    for source in missing:
        print(f"no translation: {source!r}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:3]))
