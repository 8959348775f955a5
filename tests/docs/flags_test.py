#!/usr/bin/env python3
"""Checks the command-line flags of each program against its doc pages.

    flags_test.py DOCS_DIR PROGRAM=BINARY [PROGRAM=BINARY ...]

For every PROGRAM it runs `BINARY --help` and reads the flags it lists
(lines "  --name=VALUE ..." and "  --[no-]name ...", as FlagSet::usage()
prints them; --help itself is left out). It then reads the flag tables of
the pages in PAGES below and fails unless
  - every flag --help lists has a row in a flag table of that program, and
  - every flag a table of that program lists is one --help lists.
On failure it prints, per program, the flags missing from the docs and the
documented flags that do not exist (with page and line), and exits 1.

How a page is read:
  - A flag table is a Markdown table with a header cell "flag". Each row's
    "flag" cell names its flags in backticks: `--name`, `--[no-]name`,
    `--name=...` (several in one cell are fine: `--ip`, `--port`). Anything
    else in the cell (`-n N`, `<master>`) is prose.
  - A table whose header also has a "daemon" cell gives each row's program
    there: `master` is mesos-master, `slave` is mesos-slave (rows without a
    --flag, such as a driver's environment variables, are skipped).
  - Any other table belongs to the program named by the innermost heading
    around it that names one (`## mesos-cat`, "## The command executor
    (`mesos-executor`)"); when no heading does, to the page's program in
    PAGES. A page whose program is None must name one in a heading above
    each of its tables.
Code blocks (```) are skipped. A page with flag tables that is not in
PAGES is not read: add it here when a page starts documenting flags.
"""

import os
import re
import subprocess
import sys

# Each page that documents command-line flags, and the program its tables
# belong to when no heading above a table names another.
PAGES = {
    "master.md": "mesos-master",
    "allocation.md": "mesos-master",
    "high-availability.md": None,  # a "daemon" column names the program
    "slave.md": "mesos-slave",  # and mesos-executor, in its own section
    "fetcher.md": "mesos-slave",
    "container-images.md": "mesos-slave",
    "isolation.md": "mesos-slave",
    "cni.md": "mesos-slave",
    "docker-containerizer.md": "mesos-slave",  # and mesos-docker-executor
    "recovery.md": "mesos-slave",
    "health-checks.md": "mesos-slave",
    "mesos-local.md": "mesos-local",
    "mesos-execute.md": "mesos-execute",
    "cli.md": None,  # one section per tool
    "test-framework.md": "test-framework",
}

DAEMONS = {"master": "mesos-master", "slave": "mesos-slave"}

# Programs a heading may name (besides those given on the command line).
# Not mesos-agent: slave.md's title names it beside mesos-slave.
PROGRAMS = ["mesos-master", "mesos-slave", "mesos-executor", "mesos-docker-executor", "mesos-local",
            "mesos-execute", "mesos-ps", "mesos-cat", "mesos-tail",
            "mesos-resolve", "test-framework"]

HELP_LINE = re.compile(r"^  --(\[no-\])?([a-z0-9_]+)(=VALUE)?(\s|$)")
HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
BACKTICKED = re.compile(r"`([^`]*)`")
FLAG = re.compile(r"^--(\[no-\])?([A-Za-z0-9_-]+)")


class Problem(Exception):
    pass


def help_flags(program, binary):
    """The flags `binary --help` lists, in order."""
    # No MESOS_* or LIBPROCESS_* variable of this shell may change the answer.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MESOS_", "LIBPROCESS_"))}
    try:
        run = subprocess.run([binary, "--help"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env=env, timeout=60,
                             universal_newlines=True)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Problem("%s: cannot run '%s --help': %s" % (program, binary, e))
    if run.returncode != 0:
        raise Problem("%s: '%s --help' exited with status %d:\n%s"
                      % (program, binary, run.returncode, run.stdout))
    flags = []
    for line in run.stdout.splitlines():
        match = HELP_LINE.match(line)
        if match and match.group(2) != "help":
            flags.append(match.group(2))
    if not flags:
        raise Problem("%s: '%s --help' lists no flag:\n%s"
                      % (program, binary, run.stdout))
    return flags


def cells(row):
    """The cells of a table row; a '|' inside backticks is not a border."""
    out, cell, quoted = [], "", False
    text = row.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    for c in text:
        if c == "`":
            quoted = not quoted
        if c == "|" and not quoted:
            out.append(cell.strip())
            cell = ""
        else:
            cell += c
    out.append(cell.strip())
    return out


def flags_in(cell):
    names = []
    for quoted in BACKTICKED.findall(cell):
        match = FLAG.match(quoted.strip())
        if match:
            names.append(match.group(2).replace("-", "_"))
    return names


def names_programs(text, programs):
    return [p for p in programs
            if re.search(r"(?<![\w-])" + re.escape(p) + r"(?![\w-])", text)]


def read_page(path, page, default, programs):
    """Yields (program, flag, line number) for every flag-table row."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    headings = []  # (level, text): the headings around the current line
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced = not fenced
            i += 1
            continue
        if fenced:
            i += 1
            continue
        heading = HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            while headings and headings[-1][0] >= level:
                headings.pop()
            headings.append((level, heading.group(2)))
            i += 1
            continue
        is_table = (line.lstrip().startswith("|") and i + 1 < len(lines)
                    and SEPARATOR.match(lines[i + 1].strip()))
        if not is_table:
            i += 1
            continue
        header = [c.lower() for c in cells(line)]
        start = i + 1
        i += 2
        rows = []
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            rows.append((i + 1, cells(lines[i])))
            i += 1
        if "flag" not in header:
            continue
        column = header.index("flag")
        daemon = header.index("daemon") if "daemon" in header else None
        owner = None
        if daemon is None:
            for _, text in reversed(headings):
                named = names_programs(text, programs)
                if len(named) > 1:
                    raise Problem("%s:%d: the heading '%s' names %s: say "
                                  "which program the table's flags are of"
                                  % (page, start, text, ", ".join(named)))
                if named:
                    owner = named[0]
                    break
            owner = owner or default
            if owner is None:
                raise Problem("%s:%d: no heading above this flag table names "
                              "the program whose flags it lists"
                              % (page, start))
        for number, row in rows:
            if column >= len(row):
                continue
            flags = flags_in(row[column])
            if not flags:
                continue
            program = owner
            if daemon is not None:
                name = row[daemon].strip("` ") if daemon < len(row) else ""
                program = DAEMONS.get(name, name)
                if program not in programs:
                    raise Problem("%s:%d: unknown daemon '%s' (known: %s)"
                                  % (page, number, name,
                                     ", ".join(sorted(DAEMONS))))
            for flag in flags:
                yield program, flag, number


def main(argv):
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        sys.stderr.write(__doc__)
        return 2
    docs = argv[1]
    binaries = dict(a.split("=", 1) for a in argv[2:])
    programs = sorted(set(binaries) | set(PROGRAMS))

    documented = {}  # program -> {flag: [(page, line)]}
    pages_of = {}  # program -> pages with a table of its flags
    try:
        for page, default in PAGES.items():
            path = os.path.join(docs, page)
            if not os.path.exists(path):
                raise Problem("docs/%s: no such page (listed in PAGES of %s)"
                              % (page, os.path.basename(__file__)))
            for program, flag, line in read_page(path, "docs/" + page,
                                                 default, programs):
                documented.setdefault(program, {}).setdefault(
                    flag, []).append(("docs/" + page, line))
                pages_of.setdefault(program, [])
                if "docs/" + page not in pages_of[program]:
                    pages_of[program].append("docs/" + page)
        for program in documented:
            if program not in binaries:
                raise Problem("%s: its flags are documented in %s, but the "
                              "test was not given its binary (add %s=$<"
                              "TARGET_FILE:%s> in tests/docs/CMakeLists.txt)"
                              % (program, ", ".join(pages_of[program]),
                                 program, program))
        failed = False
        for program in sorted(binaries):
            listed = help_flags(program, binaries[program])
            flags = documented.get(program, {})
            undocumented = [f for f in listed if f not in flags]
            unknown = [(f, where) for f, where in sorted(flags.items())
                       if f not in listed]
            pages = ", ".join(pages_of.get(program, [])) or "no page"
            if not undocumented and not unknown:
                print("%s: all %d flags of --help documented (%s)"
                      % (program, len(listed), pages))
                continue
            failed = True
            print("%s (flag tables in %s):" % (program, pages))
            if undocumented:
                print("  flags --help lists that no flag table documents:")
                for f in undocumented:
                    print("    --%s" % f)
            if unknown:
                print("  documented flags --help does not list:")
                for f, where in unknown:
                    print("    --%s (%s)" % (f, ", ".join(
                        "%s:%d" % w for w in where)))
        return 1 if failed else 0
    except Problem as e:
        print(e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
