"""chance.py: where a question's best cosine sits against the random-pair
profile ragd reads cosine against (search.NormSpace, ADR 0016), in units of
the pairs' standard deviation (z = (cosine - mean) / sd), for questions with
an answer and questions with none. Runs the reference runtime of
scripts/models.sh (onnxruntime on the model's ONNX export, one thread) with
ragd's query/passage prefixes:

  O=~/.cache/ragd-models/onnx/all-minilm
  ~/.cache/ragd-models/venv/bin/python scripts/quality/chance.py all-minilm \\
      $O/all-minilm-l6-v2.onnx $O/all-minilm-l6-v2-tokenizer.json mean

(bge-small-en-v1.5: cls pooling; e5-small-v2: mean.) Two corpora:
  - SciFact (../shared/bench/scifact or RAGD_SHARED_DIR): 300 abstracts cut
    to 1000 characters (the relevant ones of 60 training claims, seed 1,
    and random others); the claims' relevant abstracts, and the best
    abstract of 10 off-topic questions;
  - the real-model tier's corpus (daemon/realmodel_test.go: the handbook
    and the docs of chanceDocs, cut every 800 characters): the paraphrase
    and two off-topic questions the test asks.
"""
import gzip, json, os, random, re, sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "models"))
import onnxruntime as ort  # noqa: E402
import reference  # noqa: E402

_session = ort.InferenceSession


def one_thread(path, providers=None):
    o = ort.SessionOptions()
    o.intra_op_num_threads = 1
    o.inter_op_num_threads = 1
    return _session(path, sess_options=o, providers=providers)


reference.ort.InferenceSession = one_thread

OFF = ["Who won the football world cup final in 1998?", "What is a good recipe for sourdough bread?",
       "How do I configure the printer on the third floor?", "Which flight should I book to Lisbon next week?",
       "How do I rebase a git branch onto main?", "What time does the office kitchen close?",
       "Best hiking trails near Denver in autumn", "How do I reset my Wi-Fi password at the office?",
       "What is the capital of Australia?", "Explain the rules of cricket for beginners"]


def prefixes(name):
    if name.startswith("bge"):
        return "Represent this sentence for searching relevant passages: ", ""
    if name.startswith("e5"):
        return "query: ", "passage: "
    return "", ""


def profile(D):
    pairs = (D @ D.T)[np.triu_indices(len(D), 1)]
    return pairs.mean(), pairs.std()


def pct(a):
    return " ".join(f"{x:+.2f}" for x in np.percentile(a, [0, 10, 25, 50, 75, 90, 100]))


def scifact(name, embed):
    qp, dp = prefixes(name)
    bench = os.path.join(os.environ.get("RAGD_SHARED_DIR", os.path.join(ROOT, "..", "shared")), "bench", "scifact")
    docs = {}
    with gzip.open(os.path.join(bench, "corpus.jsonl.gz"), "rt") as f:
        for line in f:
            d = json.loads(line)
            docs[d["_id"]] = (d["title"] + "\n\n" + d["text"])[:1000]
    qs = {}
    for line in open(os.path.join(bench, "queries-train.jsonl")):
        d = json.loads(line)
        qs[d["_id"]] = d["text"]
    rel = {}
    for line in open(os.path.join(bench, "qrels-train.tsv")):
        p = line.split()
        if len(p) >= 2 and p[1] in docs:
            rel.setdefault(p[0], []).append(p[1])
    rng = random.Random(1)
    qids = rng.sample(sorted(q for q in rel if q in qs), 60)
    sample = sorted({d for q in qids for d in rel[q]})
    sample += rng.sample(sorted(set(docs) - set(sample)), 300 - len(sample))
    D = embed([dp + docs[d] for d in sample])
    b, sd = profile(D)
    idx = {d: i for i, d in enumerate(sample)}
    S = embed([qp + qs[q] for q in qids]) @ D.T
    zrel = [(max(S[i, idx[d]] for d in rel[q]) - b) / sd for i, q in enumerate(qids)]
    zoff = [(s.max() - b) / sd for s in embed([qp + t for t in OFF]) @ D.T]
    print(f"{name}, SciFact sample of {len(sample)}: random pairs {b:.3f} ± {sd:.3f}")
    print(f"  z of the relevant abstract, 60 claims (min p10 p25 p50 p75 p90 max): {pct(zrel)}")
    print(f"  z of the best abstract, 10 off-topic questions                    : {pct(zoff)}")


def tier(name, embed):
    qp, dp = prefixes(name)
    src = open(os.path.join(ROOT, "daemon", "realmodel_test.go")).read()
    corpus = re.search(r"var realCorpus = map\[string\]string\{(.*?)\n\}", src, re.S).group(1)
    texts = [part.strip() for body in re.findall(r"`(.*?)`", corpus, re.S) for part in re.split(r"\n(?=## )", body)]
    names = re.search(r"var chanceDocs = \[\]string\{(.*?)\}", src, re.S).group(1)
    for f in re.findall(r'"([^"]+)"', names):
        t = open(os.path.join(ROOT, "docs", f)).read()
        texts += [t[i:i + 800] for i in range(0, len(t), 800)]
    D = embed([dp + t for t in texts])
    b, sd = profile(D)
    print(f"{name}, the real-model tier's corpus ({len(texts)} pieces): random pairs {b:.3f} ± {sd:.3f}")
    for q in ["Where does my old notebook computer go when I resign?", "Who won the football world cup final in 1998?",
              "What is a good recipe for sourdough bread?"]:
        s = embed([qp + q])[0] @ D.T
        i = int(s.argmax())
        print(f"  best {s[i]:.3f}, z {(s[i] - b) / sd:+.2f} ({texts[i][:24]!r}): {q}")


def main():
    name, onnx, tok, pooling = sys.argv[1:5]

    def embed(texts):
        return reference.embed(onnx, tok, pooling, texts)

    scifact(name, embed)
    tier(name, embed)


if __name__ == "__main__":
    main()
