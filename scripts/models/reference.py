"""reference: embed texts with a model's ONNX export in onnxruntime, the way
its model card does (tokenizer.json, mean or CLS pooling, L2 normalisation),
and compare with what an Ollama server answers for the same texts.

usage:
  python reference.py embed ONNX TOKENIZER POOLING < texts.json   (a JSON list; prints a JSON list of vectors)
  python reference.py check ONNX TOKENIZER POOLING HOST MODEL     (the fixed pairs; exit 1 if any cosine differs by > 0.01)
"""
import json
import sys
import urllib.request

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

# MAX_TOKENS is BERT's position table; the server truncates there too.
MAX_TOKENS = 512
# TOLERANCE is how far the server's cosine may be from the reference's:
# Ollama stores the weights in float16.
TOLERANCE = 0.01

# PAIRS are the fixed sentence pairs of the provenance check: close
# paraphrases, a related pair and unrelated ones.
PAIRS = [
    ("a dog runs in the park", "a puppy is running outdoors"),
    ("a dog runs in the park", "the stock market fell"),
    ("treatment of breast cancer with chemotherapy", "tumor therapy outcomes in oncology patients"),
    ("treatment of breast cancer with chemotherapy", "the football team won the championship"),
    ("How do I configure the database connection string?", "Setting up DB credentials and host in the config file"),
    ("The new movie is awesome", "The new movie is so great"),
]


def embed(onnx_path, tokenizer_path, pooling, texts):
    """Return the L2-normalised embeddings of texts, as a float32 array."""
    tok = Tokenizer.from_file(tokenizer_path)
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}
    out = []
    for text in texts:
        enc = tok.encode(text)
        ids = np.array([enc.ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = sess.run(None, feed)[0][0]
        v = hidden[0] if pooling == "cls" else hidden.mean(axis=0)
        out.append(v / np.linalg.norm(v))
    return np.array(out, dtype=np.float32)


def served(host, model, texts):
    """Return the server's /api/embed vectors for texts."""
    body = json.dumps({"model": model, "input": texts}).encode()
    req = urllib.request.Request(host.rstrip("/") + "/api/embed", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as r:
        return np.array(json.load(r)["embeddings"], dtype=np.float32)


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "embed" and len(sys.argv) == 5:
        texts = json.load(sys.stdin)
        json.dump(embed(*sys.argv[2:5], texts).tolist(), sys.stdout)
        return 0
    if cmd == "check" and len(sys.argv) == 7:
        onnx_path, tok, pooling, host, model = sys.argv[2:7]
        texts = sorted({t for p in PAIRS for t in p})
        ref = dict(zip(texts, embed(onnx_path, tok, pooling, texts)))
        got = dict(zip(texts, served(host, model, texts)))
        worst = 0.0
        print(f"{'reference':>9} {'served':>7} {'diff':>6}  pair")
        for a, b in PAIRS:
            r, s = float(ref[a] @ ref[b]), float(got[a] @ got[b])
            worst = max(worst, abs(r - s))
            print(f"{r:9.4f} {s:7.4f} {s - r:+6.4f}  {a} / {b}")
        self_cos = min(float(ref[t] @ got[t] / np.linalg.norm(got[t])) for t in texts)
        print(f"lowest cosine between a text's served and reference vector: {self_cos:.4f}")
        ok = worst <= TOLERANCE
        print(f"{model}: largest difference {worst:.4f} ({'within' if ok else 'OVER'} {TOLERANCE})")
        return 0 if ok else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
