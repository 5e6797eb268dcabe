"""onnx2bert: a BERT checkpoint folder that Ollama's converter reads, from an
ONNX export of a BERT encoder (optimum's export, as the langchain4j jars
ship them) and its tokenizer.json.

The ONNX graph keeps every bias and LayerNorm tensor under its PyTorch name;
each Linear weight is an anonymous MatMul initializer of shape [in, out],
named after its node (/encoder/layer.0/attention/self/query/MatMul), so it is
stored transposed under the PyTorch name (encoder.layer.0.attention.self.
query.weight). The folder gets model.safetensors (float32), config.json,
tokenizer.json, tokenizer_config.json and sentence-transformers' modules.json
with the pooling the model card prescribes and a Normalize module.

usage: python onnx2bert.py MODEL.onnx TOKENIZER.json OUTDIR --heads 12 --pooling mean|cls
"""
import argparse
import json
import os
import re

import numpy as np
import onnx
from onnx import numpy_helper

MATMUL = re.compile(r"^/(encoder/layer\.\d+/.+)/MatMul$")
SKIP = {"embeddings.position_ids"}


def tensors(path):
    """Return the PyTorch-named float32 tensors of the ONNX model at path."""
    model = onnx.load(path)
    inits = {i.name: i for i in model.graph.initializer}
    out = {}
    for name, init in inits.items():
        if name.startswith("onnx::") or name in SKIP:
            continue
        out[name] = numpy_helper.to_array(init)
    for node in model.graph.node:
        m = MATMUL.match(node.name) if node.op_type == "MatMul" else None
        if not m:
            continue
        weight = [i for i in node.input if i in inits]
        if not weight:  # attention's activations times activations
            continue
        if len(weight) != 1 or node.input[1] != weight[0]:
            raise SystemExit(f"MatMul {node.name}: want x times one weight initializer, got {node.input}")
        name = m.group(1).replace("/", ".") + ".weight"
        out[name] = np.ascontiguousarray(numpy_helper.to_array(inits[weight[0]]).T)
    for name, arr in out.items():
        if arr.dtype != np.float32:
            raise SystemExit(f"{name}: dtype {arr.dtype}, want float32 (a quantised export cannot be converted)")
    return out


def write_safetensors(path, tensors):
    """Write tensors (name -> float32 array) in the safetensors format."""
    header, offset = {}, 0
    names = sorted(tensors)
    for name in names:
        size = tensors[name].nbytes
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(len(raw).to_bytes(8, "little"))
        f.write(raw)
        for name in names:
            f.write(tensors[name].astype("<f4").tobytes())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnx")
    ap.add_argument("tokenizer")
    ap.add_argument("out")
    ap.add_argument("--heads", type=int, required=True, help="attention heads (the model card's config)")
    ap.add_argument("--pooling", choices=["mean", "cls"], required=True)
    a = ap.parse_args()

    ts = tensors(a.onnx)
    layers = 1 + max(int(re.match(r"encoder\.layer\.(\d+)\.", n).group(1)) for n in ts if n.startswith("encoder.layer."))
    vocab, hidden = ts["embeddings.word_embeddings.weight"].shape
    inter = ts["encoder.layer.0.intermediate.dense.weight"].shape[0]
    positions = ts["embeddings.position_embeddings.weight"].shape[0]
    if hidden % a.heads:
        raise SystemExit(f"hidden size {hidden} is not a multiple of {a.heads} heads")
    os.makedirs(os.path.join(a.out, "1_Pooling"), exist_ok=True)
    write_safetensors(os.path.join(a.out, "model.safetensors"), ts)
    config = {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
        "hidden_size": int(hidden), "intermediate_size": int(inter), "num_attention_heads": a.heads,
        "num_hidden_layers": layers, "max_position_embeddings": int(positions), "vocab_size": int(vocab),
        "type_vocab_size": int(ts["embeddings.token_type_embeddings.weight"].shape[0]),
        "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute",
    }
    json.dump(config, open(os.path.join(a.out, "config.json"), "w"), indent=1)
    with open(a.tokenizer, "rb") as src, open(os.path.join(a.out, "tokenizer.json"), "wb") as dst:
        dst.write(src.read())
    json.dump({"do_lower_case": True, "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
               "cls_token": "[CLS]", "mask_token": "[MASK]", "tokenizer_class": "BertTokenizer",
               "model_max_length": int(positions)}, open(os.path.join(a.out, "tokenizer_config.json"), "w"))
    json.dump([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ], open(os.path.join(a.out, "modules.json"), "w"))
    json.dump({"word_embedding_dimension": int(hidden), "pooling_mode_cls_token": a.pooling == "cls",
               "pooling_mode_mean_tokens": a.pooling == "mean", "pooling_mode_max_tokens": False,
               "pooling_mode_mean_sqrt_len_tokens": False},
              open(os.path.join(a.out, "1_Pooling", "config.json"), "w"))
    print(f"{a.out}: {len(ts)} tensors, {layers} layers, hidden {hidden}, {a.heads} heads, {a.pooling} pooling")


if __name__ == "__main__":
    main()
