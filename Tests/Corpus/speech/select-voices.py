#!/usr/bin/python3
"""Writes voices.tsv: the recorded voice clips the real-speech phrase set is made from.

Run with Debian's python3 and python3-numpy (and sox), after scripts/setup:
    /usr/bin/python3 Tests/Corpus/speech/select-voices.py > Tests/Corpus/speech/voices.tsv

A clip is kept when it is one sentence or phrase spoken once:
  - its voiced span (10 ms frames above max(peak - 40 dB, floor + 6 dB), first to last) lasts
    1.2-7.5 s: long enough to be a sentence, short enough that no correct detector splits it (8 s);
  - no quiet stretch inside that span (frames below max(peak - 30 dB, floor + 6 dB)) lasts 0.3 s
    or more: a sentence that pauses inside as long as between sentences cannot be told apart by
    its pauses (the set's pauses between sentences are 0.35-1.5 s);
  - for the Asterisk prompts, its transcript is one sentence of at least three words.
Of the Asterisk prompts, 40 evenly spaced clips per language (in name order) are listed.
The tests measure every clip's voiced span again (RecordedVoices.swift) with the same rule.
"""
import gzip, os, re, subprocess, zipfile, numpy as np

WARZONE = "/usr/share/games/warzone2100/base.wz"
ASTERISK = [("en", "en_US_f_Allison", "f"), ("fr", "fr_CA_f_June", "f"), ("es", "es_MX_f_Allison", "f"),
            ("it", "it_IT_m_Carlo", "m"), ("ru", "ru_RU_f_IvrvoiceRU", "f")]
PER_LANGUAGE = 40

def decode(path):
    out = subprocess.run(["sox", path, "-t", "f32", "-c", "1", "-"], capture_output=True).stdout
    rate = int(float(subprocess.run(["soxi", "-r", path], capture_output=True, text=True).stdout))
    return np.frombuffer(out, dtype=np.float32), rate

def measure(x, rate):
    hop = rate // 100
    n = len(x) // hop
    if n < 10: return None
    levels = 10 * np.log10((x[:n * hop].reshape(n, hop).astype(np.float64) ** 2).mean(1) + 1e-12)
    peak, floor = levels.max(), np.percentile(levels, 5)
    on = np.where(levels > max(peak - 40, floor + 6))[0]
    if len(on) == 0: return None
    start, end = on[0], on[-1] + 1
    quiet = levels[start:end] < max(peak - 30, floor + 6)
    longest = run = 0
    for q in quiet:
        run = run + 1 if q else 0
        longest = max(longest, run)
    return (end - start) / 100, longest / 100

def keep(measured):
    return measured is not None and 1.2 <= measured[0] <= 7.5 and measured[1] < 0.3

print("set\tpackage\tpath\tlanguage\tspeaker\ttext")
with zipfile.ZipFile(WARZONE) as archive:
    names = sorted((n for n in archive.namelist() if re.fullmatch(r"audio/tutorial/tut\d+\.ogg", n)),
                   key=lambda n: int(re.search(r"\d+", n).group()))
    for name in names:
        tmp = "/tmp/select-voices.ogg"
        with open(tmp, "wb") as fh: fh.write(archive.read(name))
        if keep(measure(*decode(tmp))):
            print(f"wz-en\twarzone2100-data\t{WARZONE}!{name}\ten\ttutorial narrator\t")
for language, folder, sex in ASTERISK:
    texts = {}
    with gzip.open(f"/usr/share/doc/asterisk-core-sounds-{language}/core-sounds-{language}.txt.gz", "rt", encoding="utf-8-sig") as fh:
        for line in fh:
            if line.startswith(";") or ":" not in line: continue
            key, text = line.split(":", 1)
            texts[key.strip()] = " ".join(text.split())
    eligible = []
    for key in sorted(texts):
        text, path = texts[key], f"/usr/share/asterisk/sounds/{folder}/{key}.wav"
        if not os.path.exists(path) or "[" in text or "\t" in text: continue
        if len(text.split()) < 3 or re.search(r"[.?!]\s+\S", text): continue
        if keep(measure(*decode(path))):
            eligible.append((path, text))
    step = max(1, len(eligible) / PER_LANGUAGE)
    for index in range(min(PER_LANGUAGE, len(eligible))):
        path, text = eligible[int(index * step)]
        print(f"ast-{language}\tasterisk-core-sounds-{language}-wav\t{path}\t{language}\t{folder.split('_')[-1]} ({sex})\t{text}")
