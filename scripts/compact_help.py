"""The -h of the simulators, within 24 lines: the usage, what the program
does, and its options by name with their defaults; the man page describes
each."""
import argparse
import textwrap


def option_text(action):
    """The option as typed: its longest name and, if it takes one, its value."""
    name = max(action.option_strings, key=len)
    if action.nargs == 0:
        return name
    if isinstance(action.metavar, tuple):
        return name + " " + " ".join(action.metavar)
    if action.metavar:
        return name + " " + action.metavar
    return name + " " + {int: "N", float: "X"}.get(action.type, action.dest.upper())


def install(parser, where):
    """Makes parser.format_help give the compact text; where says where
    the options are described."""
    def format_help():
        out = ["usage: %s [options]" % parser.prog]
        out += textwrap.wrap(" ".join((parser.description or "").split()), 76)
        out.append("options (%s describes each):" % where)
        row = ""
        for action in parser._actions:
            if not action.option_strings:
                continue
            item = option_text(action)
            if action.nargs != 0 and action.default not in (None, argparse.SUPPRESS):
                item += " (default: %s)" % (action.default,)
            if len(row) + 2 + len(item) > 78:
                out.append(row)
                row = ""
            row += "  " + item
        out.append(row)
        return "\n".join(out) + "\n"
    parser.format_help = format_help
    return parser
