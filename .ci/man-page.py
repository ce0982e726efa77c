#!/usr/bin/env python3
"""Writes wallet-orders(1) in mdoc from the tool's own description of its commands.

Usage: python3 .ci/man-page.py WALLET_ORDERS_BINARY > wallet-orders.1

It runs `WALLET_ORDERS_BINARY --experimental-dump-help` (swift-argument-parser's ToolInfo JSON,
the input of argument-parser's own `generate-manual` plugin) and writes one page: the synopsis,
then every subcommand with its options. A script rather than the plugin because the plugin
rebuilds the whole package in release mode through `swift package`, which can't run while
`swift test` holds the build folder (the install test runs inside `swift test`).
"""
import json
import subprocess
import sys


def escape(text):
    """Text for an mdoc line: backslashes doubled, no line may start with '.' or "'"."""
    lines = []
    text = (text or "").replace("\\", "\\e")
    # roff input is ASCII: anything else as a named Unicode escape (\[u2026] for …).
    text = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)
    for line in text.splitlines():
        line = line.rstrip()
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line if line else ".Pp")
    return "\n".join(lines)


def argument_names(argument):
    names = []
    for name in argument.get("names", []):
        prefix = {"long": "--", "short": "-", "longWithSingleDash": "-"}[name["kind"]]
        names.append(prefix + name["name"])
    return names


def write_arguments(out, arguments):
    shown = [a for a in arguments if a.get("shouldDisplay", True)]
    if not shown:
        return
    out.append(".Bl -tag -width 6n")
    for argument in shown:
        names = argument_names(argument)
        value = argument.get("valueName")
        if argument["kind"] == "positional":
            item = "<%s>" % value
        elif argument["kind"] == "option":
            item = ", ".join(names) + " <%s>" % value
        else:
            item = ", ".join(names)
        out.append(".It Li " + escape(item).replace("\n", " "))
        text = argument.get("abstract", "")
        if argument.get("defaultValue"):
            text += " (default: %s)" % argument["defaultValue"]
        if argument.get("allValues"):
            text += " Values: %s." % ", ".join(argument["allValues"])
        out.append(escape(text) or ".Pp")
        if argument.get("discussion"):
            discussion = argument["discussion"]
            if isinstance(discussion, dict):
                discussion = discussion.get("staticText", "")
            if discussion:
                out.append(".Pp")
                out.append(escape(discussion))
    out.append(".El")


def write_discussion(out, text):
    """Paragraphs as filled text; indented lines (examples, tables) as literal blocks."""
    literal = False
    for line in (text or "").splitlines():
        indented = line.startswith(" ")
        if line.strip() and indented != literal:
            out.append(".Bd -literal -offset indent" if indented else ".Ed")
            literal = indented
        if not line.strip():
            if literal:
                out.append(".Ed")
                literal = False
            out.append(".Pp")
        else:
            out.append(escape(line.strip() if not indented else line[2:] if line.startswith("  ") else line))
    if literal:
        out.append(".Ed")


def write_command(out, command, path):
    out.append(".Ss " + " ".join(path))
    if command.get("abstract"):
        out.append(escape(command["abstract"]))
        out.append(".Pp")
    write_discussion(out, command.get("discussion"))
    write_arguments(out, command.get("arguments", []))
    for sub in command.get("subcommands", []):
        write_command(out, sub, path + [sub["commandName"]])


def main():
    info = json.loads(subprocess.run([sys.argv[1], "--experimental-dump-help"], check=True,
                                     capture_output=True).stdout)
    root = info["command"]
    name = root["commandName"]
    out = [".Dd $Mdocdate$", ".Dt %s 1" % name.upper(), ".Os", ".Sh NAME", ".Nm " + name,
           ".Nd " + escape(root.get("abstract", "")).replace("\n", " "), ".Sh SYNOPSIS",
           ".Nm", ".Ar subcommand", ".Op Ar options", ".Sh DESCRIPTION"]
    write_discussion(out, root.get("discussion"))
    out.append(".Sh COMMANDS")
    for sub in root.get("subcommands", []):
        write_command(out, sub, [name, sub["commandName"]])
    out += [".Sh EXIT STATUS", "0 success, 1 findings or failure, 64 usage error",
            "(store contains: 10 notFound, 11 newerExists, 12 olderExists).",
            ".Sh SEE ALSO", "The README of the wallet-orders repository."]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
