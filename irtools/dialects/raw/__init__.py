"""The raw dialect: Gemini's IR before address allocation (`SchNode::IR_gen()` output).

`models` are its Pydantic models, `keys` its GIR103/GIR104 key scan, `dialect` declares it (`RAW`).
"""
