"""The layer DAG: a ResNet-like network of conv (pe), relu and add (vp) layers with skip connections."""

from __future__ import annotations

import math
from dataclasses import dataclass

from irtools.synth.boxes import Box

INPUT_CHANNELS = 3
"""Channels of the network input (an RGB image), read from DRAM."""

STAGES = 4
"""Stages of residual blocks; each after the first halves H and W and doubles the channels."""


@dataclass(frozen=True, slots=True)
class Scale:
    """Size of the network: input height (= width) and channels of the first stage."""

    height: int
    channels: int


SCALES = (
    Scale(112, 64),
    Scale(56, 64),
    Scale(56, 32),
    Scale(32, 32),
    Scale(28, 16),
    Scale(16, 16),
    Scale(14, 8),
    Scale(8, 8),
)
"""From the largest network to the smallest; the builder takes the first one whose tiles fit L2."""


@dataclass(frozen=True, slots=True)
class Layer:
    """One layer: its operation, its producers and the shapes of its input and output."""

    index: int
    name: str
    op: str
    """conv (runs on the PE array), relu or add (vector processor)."""
    inputs: tuple[int, ...]
    """Producer layers, in ifmap order; empty for the first layer, which reads the network input."""
    channels: int
    height: int
    width: int
    in_channels: int
    in_height: int
    in_width: int
    kernel: int = 1
    stride: int = 1
    pad: int = 0

    @property
    def layer_type(self) -> str:
        """The IR's layer_type: pe for conv, vp for element-wise layers."""
        return "pe" if self.op == "conv" else "vp"

    def output_box(self, n: int) -> Box:
        """The whole ofmap of batch sample `n`."""
        return Box((n, 0, 0, 0), (n, self.channels - 1, self.height - 1, self.width - 1))

    def input_box(self, out: Box) -> Box:
        """The ifmap box that computing the ofmap box `out` reads (halo rows and columns included)."""
        if self.op != "conv":
            return out
        rows = self._window(out.lower[2], out.upper[2], self.in_height)
        cols = self._window(out.lower[3], out.upper[3], self.in_width)
        n = out.lower[0]
        return Box((n, 0, rows[0], cols[0]), (n, self.in_channels - 1, rows[1], cols[1]))

    def padding(self, out: Box) -> list[int]:
        """[top, bottom, left, right] zero padding that the ofmap box `out` needs."""
        if self.op != "conv":
            return [0, 0, 0, 0]
        top = max(0, self.pad - out.lower[2] * self.stride)
        left = max(0, self.pad - out.lower[3] * self.stride)
        bottom = max(0, out.upper[2] * self.stride - self.pad + self.kernel - self.in_height)
        right = max(0, out.upper[3] * self.stride - self.pad + self.kernel - self.in_width)
        return [top, bottom, left, right]

    def weight_box(self, k0: int, k1: int) -> Box:
        """The [K, C, R, S] weight slice for output channels k0..k1."""
        return Box((k0, 0, 0, 0), (k1, self.in_channels - 1, self.kernel - 1, self.kernel - 1))

    def _window(self, first: int, last: int, size: int) -> tuple[int, int]:
        lo = first * self.stride - self.pad
        hi = last * self.stride - self.pad + self.kernel - 1
        return max(0, lo), min(size - 1, hi)


class _Builder:
    def __init__(self, image: int) -> None:
        self.image = image
        self.layers: list[Layer] = []

    def conv(self, src: int | None, channels: int, kernel: int, stride: int) -> int:
        c, h, w = self._shape(src)
        pad = kernel // 2
        out_h = (h + 2 * pad - kernel) // stride + 1
        out_w = (w + 2 * pad - kernel) // stride + 1
        return self._add(
            "conv", () if src is None else (src,), channels, out_h, out_w, c, h, w, kernel, stride, pad
        )

    def unary(self, op: str, src: int) -> int:
        c, h, w = self._shape(src)
        return self._add(op, (src,), c, h, w, c, h, w)

    def add(self, a: int, b: int) -> int:
        c, h, w = self._shape(a)
        return self._add("add", (a, b), c, h, w, c, h, w)

    def _shape(self, src: int | None) -> tuple[int, int, int]:
        if src is None:
            return INPUT_CHANNELS, self.image, self.image
        layer = self.layers[src]
        return layer.channels, layer.height, layer.width

    def _add(self, op: str, inputs: tuple[int, ...], *shape: int) -> int:
        index = len(self.layers)
        name = f"{op.capitalize()}_{index}"
        self.layers.append(Layer(index, name, op, inputs, *shape))
        return index


def build_graph(count: int, scale: Scale) -> list[Layer]:
    """`count` layers: a stem conv and relu, then residual blocks (conv, relu, conv, add, relu).

    The first block of each later stage downsamples: its first conv has stride 2 and the skip
    connection gets a 1x1 stride-2 projection conv. Layers are numbered in topological order.
    When fewer layers remain than a block needs, conv/relu pairs fill up.
    """
    b = _Builder(scale.height)
    x = b.conv(None, scale.channels, 3, 1)
    if count > 1:
        x = b.unary("relu", x)
    blocks = max(1, (count - 2) // 5)
    per_stage = math.ceil(blocks / STAGES)
    block = 0
    while len(b.layers) < count:
        remaining = count - len(b.layers)
        channels, height = b.layers[x].channels, b.layers[x].height
        downsample = block > 0 and block % per_stage == 0 and height >= 4
        if remaining >= (6 if downsample else 5):
            width = channels * 2 if downsample else channels
            stride = 2 if downsample else 1
            y = b.conv(x, width, 3, stride)
            y = b.unary("relu", y)
            y = b.conv(y, width, 3, 1)
            skip = b.conv(x, width, 1, 2) if downsample else x
            y = b.add(y, skip)
            x = b.unary("relu", y)
            block += 1
        elif remaining >= 2:
            x = b.unary("relu", b.conv(x, channels, 3, 1))
        else:
            x = b.conv(x, channels, 3, 1)
    return b.layers


def consumers(layers: list[Layer]) -> list[list[tuple[int, int]]]:
    """For each layer, its (consumer layer, input slot) pairs."""
    result: list[list[tuple[int, int]]] = [[] for _ in layers]
    for layer in layers:
        for slot, src in enumerate(layer.inputs):
            result[src].append((layer.index, slot))
    return result
