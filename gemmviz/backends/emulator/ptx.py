"""Reading PTX (as `nvcc -ptx -lineinfo` writes it) into instructions the emulator runs: one kernel entry, its
parameters, registers, static shared and local arrays, module-level .global data (printf's format strings,
__device__ variables), and each instruction with its guard, opcode, modifiers, operands and source line.

Only what the registry's SIMT kernels and the exercises use is accepted; anything else is refused by name and
line (EmulatorRefusal), so a kernel is either run faithfully or not at all. Pure Python."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SHARED_LIMIT_BYTES = 48 * 1024  # static shared memory a block may have
LOCAL_LIMIT_BYTES = 16 * 1024  # local memory per thread the emulator gives (CHUNK_THREADS of them at once)
GLOBAL_LIMIT_BYTES = 256 << 20  # the module's __device__ arrays together: checked before anything is allocated


class EmulatorRefusal(Exception):
    """The emulator cannot run this kernel: `what` is the construct, `line` the student's source line."""

    def __init__(self, what: str, line: int | None, key: str = "emu.refuse", **params):
        self.what, self.line, self.key = what, line, key
        self.params = {"what": what, "line": line if line is not None else "?", **params}
        super().__init__(f"the emulator does not run {what} (line {self.params['line']}); check this kernel on a GPU")


OPCODES = {
    "add", "and", "bar", "barrier", "bra", "cvt", "cvta", "fma", "ld", "mad", "max", "min", "mov", "mul", "or",
    "xor", "not", "neg", "rem", "div", "ret", "exit", "selp", "setp", "shl", "shr", "st", "sub", "atom", "red",
    "call", "abs", "cnot", "copysign", "shfl", "vote", "activemask", "trap", "nanosleep", "membar", "fence",
    "redux", "popc", "clz", "brev", "bfe", "bfi", "sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh",
}  # fmt: skip
_ATOMICS = {"cas": "CAS", "exch": "Exch", "min": "Min", "max": "Max", "inc": "Inc", "dec": "Dec", "and": "And",
            "or": "Or", "xor": "Xor"}  # fmt: skip
# Opcodes a student meets that the emulator refuses, named as the student knows them.
NAMED = {"cp": "cp.async", "ldmatrix": "ldmatrix", "mma": "mma", "wgmma": "wgmma", "match": "__match_sync",
         "tex": "texture loads", "suld": "surface loads", "cp.async": "cp.async", "wmma": "wmma",
         "stmatrix": "stmatrix", "tcgen05": "tcgen05", "griddepcontrol": "grid dependency control"}  # fmt: skip


@dataclass
class Instr:
    index: int
    guard: tuple[str, bool] | None  # (predicate register, negated)
    op: str  # the opcode's first part: "ld", "setp", ...
    mods: tuple[str, ...]  # the rest: ("global", "nc", "f32")
    args: list  # operands as written (strings; a vector is a list of strings)
    line: int | None
    text: str


@dataclass
class Kernel:
    name: str
    params: list[tuple[str, str]]  # (name, type)
    regs: dict[str, str]  # register name (or prefix<) -> type
    shared: dict[str, tuple[int, int]]  # name -> (offset, bytes)
    shared_bytes: int
    local: dict[str, tuple[int, int]]
    local_bytes: int
    instrs: list[Instr]
    labels: dict[str, int]
    globals_: dict[str, tuple[bytes, int]] = field(default_factory=dict)  # name -> (initial bytes, size)
    # the shared loads ptxas merges (sass.vector_loads), worked out at the first run: a check runs one kernel
    # ten times or more
    vectors: dict[int, tuple[int, int]] | None = field(default=None, repr=False, compare=False)


_DECL_ARRAY = re.compile(
    r"^\.(shared|local|global|const)\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+([\w$.]+)(?:\[(\d*)\])?(.*)$"
)
_REG = re.compile(r"^\.reg\s+\.(\w+)\s+(.+)$")
_LOC = re.compile(r"^\.loc\s+(\d+)\s+(\d+)\s+(\d+)")
_FILE = re.compile(r'^\.file\s+(\d+)\s+"([^"]*)"')
_TYPE_BYTES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "b32": 4, "u32": 4, "s32": 4,
               "f32": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8}  # fmt: skip


def _split_statements(body: str) -> list[str]:
    """PTX text as statements (';'-terminated, labels and directives on their own), comments dropped."""
    body = re.sub(r"//[^\n]*", "", body)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    out: list[str] = []
    for chunk in body.split(";"):
        chunk = chunk.strip()
        while chunk:
            # labels, braces and .loc lines (no ';') lead a chunk
            m = re.match(r"^([\w$]+):", chunk)
            if m:
                out.append(m.group(0))
                chunk = chunk[m.end() :].strip()
                continue
            if chunk[0] in "{}":
                out.append(chunk[0])
                chunk = chunk[1:].strip()
                continue
            m = re.match(r"^(\.loc[^\n]*|\.file[^\n]*|\.pragma[^\n]*)\n", chunk + "\n")
            if m and chunk.startswith((".loc", ".file")):
                out.append(m.group(1).strip())
                chunk = chunk[m.end() :].strip()
                continue
            out.append(" ".join(chunk.split()))
            break
    return out


def _initial_bytes(rest: str, size: int) -> bytes:
    m = re.search(r"=\s*\{([^}]*)\}", rest)
    if not m:
        return bytes(size)
    values = [int(v.strip(), 0) & 0xFF for v in m.group(1).split(",") if v.strip()]
    return bytes(values) + bytes(max(0, size - len(values)))


def parse(ptx: str, kernel: str, source_name: str | None = None) -> Kernel:
    """The entry `kernel` of a PTX module; EmulatorRefusal for what the emulator does not run."""
    files = {int(m[1]): m[2] for m in re.finditer(r'^\s*\.file\s+(\d+)\s+"([^"]*)"', ptx, re.M)}
    mine = {
        n for n, p in files.items() if source_name is None or p.replace("\\", "/").split("/")[-1] == source_name
    } or (set(files) if files else None)  # no .file at all: every .loc is the kernel's file
    head = re.split(r"\.(?:visible\s+|weak\s+)?\.?entry\b", ptx)[0]
    globals_ = _module_variables(head)
    entry = re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*\(([^)]*)\)\s*(?:\.\w+[^{]*)?\{", ptx)
    if entry is None:
        raise EmulatorRefusal(f"a kernel without the entry {kernel}", None, key="emu.no_entry", kernel=kernel)
    params = [(p[1], p[0]) for p in re.findall(r"\.param\s+\.(\w+)\s+(?:\.ptr\S*\s+)?(\w+)", entry.group(1))]
    depth, i = 1, entry.end()
    while depth and i < len(ptx):
        depth += {"{": 1, "}": -1}.get(ptx[i], 0)
        i += 1
    body = ptx[entry.end() : i - 1]
    externs = set(re.findall(r"^\s*\.extern\s+\.shared\s+[^;]*?([\w$]+)\s*\[\s*\]", ptx, re.M))
    return _parse_body(kernel, params, body, mine, globals_, externs)


def _module_variables(head: str) -> dict[str, tuple[bytes, int]]:
    """The module's __device__ (and __constant__) variables: name -> (initial bytes, size). Their sizes are added
    up before a byte is allocated: past GLOBAL_LIMIT_BYTES the kernel is refused, naming the largest."""
    found = []
    for stmt in re.findall(r"^\s*(\.(?:global|const)\s[^;]*);", head, re.M):
        m = _DECL_ARRAY.match(" ".join(stmt.split()))
        if m and m.group(1) in ("global", "const"):
            found.append((m, int(m.group(5) or 1) * _TYPE_BYTES.get(m.group(3), 4)))
    total = sum(size for _, size in found)
    if total > GLOBAL_LIMIT_BYTES:
        m, size = max(found, key=lambda x: x[1])
        raise EmulatorRefusal(
            f"the __device__ array {m.group(4)}",
            None,
            key="emu.global_limit",
            name=m.group(4),
            bytes=size,
            total=total,
            limit=GLOBAL_LIMIT_BYTES,
        )
    return {m.group(4): (_initial_bytes(m.group(6), size), size) for m, size in found}


class _Scopes:
    """Registers declared inside a { } block (inline asm's `.reg .u32 t;`, a call sequence's temporaries): each
    renamed to a register of its own (%t__s3), so that an operand names it as the asm text wrote it."""

    def __init__(self, regs: dict[str, str]):
        self.regs, self.count = regs, 0
        self.stack: list[dict[str, str]] = []  # per open block: {name as written: its register}

    def statement(self, stmt: str) -> bool:
        """Whether the statement was a brace or a scoped declaration (taken here)."""
        if stmt == "{":
            self.stack.append({})
            return True
        if stmt == "}":
            if self.stack:
                self.stack.pop()
            return True
        m = _REG.match(stmt)
        if not (m and self.stack):
            return False
        for name in (n.strip() for n in m[2].split(",")):
            if "<" in name:  # a range (%p<3>) inside a block: as at the kernel's top
                self.regs[name.split("<")[0]] = m[1]
                continue
            self.count += 1
            renamed = f"%{name.lstrip('%')}__s{self.count}"
            self.stack[-1][name] = renamed
            self.regs[renamed] = m[1]
        return True

    def rename(self, stmt: str) -> str:
        for scope in reversed(self.stack):
            for name, renamed in scope.items():
                stmt = re.sub(rf"(?<![\w$%.]){re.escape(name)}(?![\w$])", renamed, stmt)
        return stmt


def _parse_body(kernel, params, body, mine, globals_, externs=frozenset()) -> Kernel:
    regs: dict[str, str] = {}
    shared: dict[str, tuple[int, int]] = {}
    local: dict[str, tuple[int, int]] = {}
    sizes = {"shared": 0, "local": 0}
    instrs: list[Instr] = []
    labels: dict[str, int] = {}
    line: int | None = None
    scopes = _Scopes(regs)
    for stmt in _split_statements(body):
        m = _LOC.match(stmt)
        if m:
            line = int(m[2]) if (mine is None or int(m[1]) in mine) and int(m[2]) > 0 else line
            continue
        if stmt.startswith(".file") or stmt.startswith(".pragma") or scopes.statement(stmt):
            continue
        if ".callprototype" in stmt:
            raise EmulatorRefusal("a call through a function pointer", line)
        if scopes.stack:
            stmt = scopes.rename(stmt)
        m = _REG.match(stmt)
        if m:
            for name in m[2].split(","):
                name = name.strip()
                regs[name.split("<")[0] if "<" in name else name] = m[1]
            continue
        m = _DECL_ARRAY.match(stmt)
        if m:
            _declare(m, line, shared if m[1] == "shared" else local, sizes)
            continue
        if stmt.startswith(".extern .shared"):
            raise EmulatorRefusal("extern __shared__ (dynamic shared memory)", line)
        if stmt.startswith(".param") or stmt.startswith(".maxntid") or stmt.startswith(".reqntid"):
            continue
        if stmt.startswith("."):
            raise EmulatorRefusal(f"the directive {stmt.split()[0]}", line)
        m = re.match(r"^([\w$]+):$", stmt)
        if m:
            labels[m[1]] = len(instrs)
            continue
        instrs.append(_instr(stmt, len(instrs), line))
    largest = _demangled(max(shared, key=lambda x: shared[x][1], default=""))
    _refuse_after(
        instrs, labels, sizes, externs, largest
    )  # after the body, so that an opcode it does not run is named first
    return Kernel(kernel, params, regs, shared, sizes["shared"], local, sizes["local"], instrs, labels, globals_)


def _refuse_after(instrs: list, labels: dict, sizes: dict, externs, largest: str = "") -> None:
    """What the whole body shows it cannot run: dynamic shared memory, too much static shared or local memory,
    a branch out of the kernel."""
    uses = (i for i in instrs if any(re.search(rf"(?<![\w$]){re.escape(x)}(?![\w$])", i.text) for x in externs))
    dynamic = next(uses, None)
    if dynamic is not None:
        raise EmulatorRefusal("extern __shared__ (dynamic shared memory)", dynamic.line)
    if sizes["shared"] > SHARED_LIMIT_BYTES:
        raise EmulatorRefusal(
            "more static shared memory than a block may have",
            instrs[0].line if instrs else None,
            key="emu.shared_limit",
            bytes=sizes["shared"],
            largest={"key": "emu.largest", "params": {"name": largest}},
            limit=SHARED_LIMIT_BYTES,
        )
    if sizes["local"] > LOCAL_LIMIT_BYTES:
        raise EmulatorRefusal(
            "so much local memory",
            instrs[0].line if instrs else None,
            key="emu.local_limit",
            bytes=sizes["local"],
            limit=LOCAL_LIMIT_BYTES,
        )
    for ins in instrs:
        if ins.op == "bra" and ins.args[0] not in labels:
            raise EmulatorRefusal(f"a branch to {ins.args[0]}", ins.line)


def _demangled(name: str) -> str:
    """A __shared__ array's name as the source writes it: nvcc names one declared in a kernel
    _ZZ10gemm_tiledE6tile_A (tile_A of gemm_tiled)."""
    m = re.fullmatch(r"_ZZ\d+\w*?E(\d+)(\w+)", name)
    if m and len(m[2]) >= int(m[1]):
        return m[2][: int(m[1])]
    return name


def _declare(m: re.Match, line: int | None, table: dict, sizes: dict) -> None:
    """A .shared or .local array of the kernel: its offset in its space, aligned."""
    space, align = m[1], int(m[2] or 1)
    if space not in ("shared", "local"):
        raise EmulatorRefusal(f".{space} variables inside a kernel", line)
    size = (int(m[5]) if m[5] else 1) * _TYPE_BYTES.get(m[3], 4)
    start = -(-sizes[space] // align) * align
    table[m[4]] = (start, size)
    sizes[space] = start + size


def _operands(text: str) -> list:
    out: list = []
    depth, cur = 0, ""
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [[x.strip() for x in a[1:-1].split(",")] if a.startswith("{") else a for a in out]


def _instr(stmt: str, index: int, line: int | None) -> Instr:
    guard = None
    m = re.match(r"^@(!?)(%\w+)\s+(.*)$", stmt)
    if m:
        guard, stmt = (m[2], bool(m[1])), m[3]
    word, _, rest = stmt.partition(" ")
    parts = word.split(".")
    op = parts[0]
    if op not in OPCODES:
        name = NAMED.get(op) or NAMED.get(".".join(parts[:2])) or word
        raise EmulatorRefusal(name, line)
    mods = tuple(parts[1:])
    if op == "call":
        m = re.match(r"^\(?\s*(\w*)\s*\)?\s*,?\s*(\w+)\s*,\s*\((.*)\)$", rest.strip())
        if not m or m[2] != "vprintf":
            target = m[2] if m else rest.strip()[:40]
            plain = re.match(r"_Z(\d+)", target)  # a C++ name, mangled: _Z1fi is f(int)
            if plain:
                target = target[plain.end() : plain.end() + int(plain[1])] or target
            raise EmulatorRefusal(
                f"a call of {target}() (a __device__ function nvcc did not inline: a recursive one, or one marked noinline)",
                line,
            )
        return Instr(index, guard, op, mods, [m[1], *[a.strip() for a in m[3].split(",")]], line, stmt)
    if op in ("ld", "st") and any(s in mods for s in ("const", "tex")):
        raise EmulatorRefusal(f"{op}.{mods[0]} (constant or texture memory)", line)
    if op in ("atom", "red") and not any(m in _ATOMICS or m == "add" for m in mods):
        raise EmulatorRefusal(word, line)
    if any(t in mods for t in ("f16", "f16x2", "bf16", "bf16x2", "tf32")):
        raise EmulatorRefusal(f"half-precision arithmetic ({word})", line)
    return Instr(index, guard, op, mods, _operands(rest), line, stmt)
