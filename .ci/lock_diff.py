"""Print the installed packages (`pip freeze` on stdin) whose version differs from requirements/dev.txt."""

import re
import sys
from pathlib import Path


def normalized(name: str) -> str:
    """A package name as PEP 503 compares them: runs of -, _ and . as one -, lower case."""
    return re.sub(r"[-_.]+", "-", name).lower()


locked = {
    normalized(name): version
    for name, version in re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", Path(sys.argv[1]).read_text(), re.MULTILINE)
}
changed = []
for line in sys.stdin:
    name, _, version = line.strip().partition("==")
    if version and locked.get(normalized(name)) != version:
        changed.append(f"  {name} {locked.get(normalized(name), '(not locked)')} -> {version}")
print("\n".join(changed) if changed else "  none")
