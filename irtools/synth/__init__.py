"""Synthetic Scheduler IR: valid multi-core files of any size, and defects injected by rule code.

`synthesize(SynthOptions(...))` builds a valid IR (JSON-ready objects); `inject(document, codes,
seed)` adds one defect per rule code and predicts the checker's findings. `irtools synth` is the
command-line front end.
"""

from irtools.synth.build import Synthesis, SynthOptions, synthesize
from irtools.synth.inject import INJECTORS, Injection, InjectionError, inject, parse_codes

__all__ = [
    "INJECTORS",
    "Injection",
    "InjectionError",
    "SynthOptions",
    "Synthesis",
    "inject",
    "parse_codes",
    "synthesize",
]
