"""Reference analyses of the real-music corpus (Tests/Corpus/music/tracks.tsv), by two other trackers.

For each track: essentia's RhythmExtractor2013 (method "multifeature": tempo, beats, confidence) and
KeyExtractor (its default profile, "bgate"), and aubio's beat tracker as `aubio beat` runs it (its
tempo as `aubio tempo` reports it: the mean of 60 / the beat intervals). Written to
references.json beside the list, one track a line, so that a change reads as a diff.

These are other trackers' answers, not the truth: the tests call a track "consensus" when the two
agree on the tempo within 4 %, and only those are scored.

Run through scripts/corpus/music-references (it makes the virtual environment with essentia).
"""
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile

import essentia.standard as es
import numpy as np

CONSENSUS_RATIO = 0.04


def essentia_reference(path):
    audio = es.MonoLoader(filename=path, sampleRate=44100)()
    bpm, ticks, confidence, _estimates, _intervals = es.RhythmExtractor2013(method="multifeature")(audio)
    key, scale, strength = es.KeyExtractor()(audio)
    return {
        "bpm": round(float(bpm), 3),
        "confidence": round(float(confidence), 3),
        "beats": [round(float(t), 3) for t in ticks],
        "key": f"{key} {scale}",
        "key_strength": round(float(strength), 3),
    }, len(audio) / 44100.0


def percussive_share(path):
    """The share of the middle minute's spectral energy that is percussive: a median filter across
    frequency (percussive) against one across time (harmonic), as harmonic-percussive separation
    does it, 2048-point frames at 22.05 kHz, filters of 17. Drums and a beat section: about 0.15
    and up; strings, piano and pads: below."""
    from numpy.lib.stride_tricks import sliding_window_view as windows
    from scipy.ndimage import median_filter
    audio = es.MonoLoader(filename=path, sampleRate=22050)()
    middle = len(audio) // 2
    segment = audio[max(0, middle - 22050 * 30):middle + 22050 * 30]
    spectrum = np.abs(np.fft.rfft(windows(segment, 2048)[::512] * np.hanning(2048), axis=1)).T
    percussive = median_filter(spectrum, size=(17, 1), mode="nearest") > median_filter(spectrum, size=(1, 17), mode="nearest")
    return round(float((spectrum[percussive] ** 2).sum() / (spectrum ** 2).sum()), 3)


def aubio_reference(path):
    # aubio reads through sox's decoding (a WAV at the file's own rate): its own avcodec source
    # fails on some of these Ogg files.
    with tempfile.TemporaryDirectory() as scratch:
        wav = os.path.join(scratch, "track.wav")
        subprocess.run(["sox", path, wav], check=True)
        out = subprocess.run(["aubio", "beat", wav], capture_output=True, text=True, check=True).stdout
    beats = [float(line.split()[0]) for line in out.splitlines() if line.strip()]
    # `aubio tempo`'s own figure (aubio/cmd.py, process_tempo.flush): the mean of 60 / intervals.
    bpm = float(np.mean(60.0 / np.diff(beats))) if len(beats) >= 2 else 0.0
    return {"bpm": round(bpm, 3), "beats": [round(t, 3) for t in beats]}


def write(output, entries):
    aubio_version = subprocess.run(["aubio", "--version"], capture_output=True, text=True).stdout.split()[-1]
    header = {
        "about": "other trackers' analyses of the tracks in tracks.tsv, not the truth; regenerate with scripts/corpus/music-references",
        "essentia": importlib.metadata.version("essentia") + " (PyPI), RhythmExtractor2013 multifeature, KeyExtractor bgate, 44.1 kHz mono",
        "aubio": aubio_version + " (aubio-tools), aubio beat on sox's decoding; bpm as aubio tempo reports it",
        "consensus_ratio": CONSENSUS_RATIO,
    }
    temporary = output + ".tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        out.write("{\n")
        for name, value in header.items():
            out.write(f"{json.dumps(name)}: {json.dumps(value)},\n")
        out.write('"tracks": [\n' + ",\n".join(json.dumps(e, separators=(",", ":")) for e in entries) + "\n]}\n")
    os.replace(temporary, output)


def main():
    folder = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Corpus", "music"))
    tracks = []
    with open(os.path.join(folder, "tracks.tsv"), encoding="utf-8") as listing:
        for line in listing:
            if not line.strip() or line.startswith("#"):
                continue
            path, package, character = line.rstrip("\n").split("\t")[:3]
            tracks.append((path, package, character))
    words = sys.argv[1:]
    output = os.path.join(folder, "references.json")
    previous = {}
    if os.path.exists(output):
        with open(output, encoding="utf-8") as old:
            previous = {t["path"]: t for t in json.load(old)["tracks"]}
    # Every track named by a word (every track, without words) is analysed again; a track with no
    # stored entry is analysed in any case. The file is rewritten after each track, so an
    # interrupted run resumes with `--resume`.
    resume = words == ["--resume"]
    entries = []
    for index, (path, package, character) in enumerate(tracks):
        again = not resume and (not words or any(word in path for word in words))
        if path in previous and not again:
            entry = previous[path]
        else:
            print(f"[{index + 1}/{len(tracks)}] {path}", file=sys.stderr, flush=True)
            ess, seconds = essentia_reference(path)
            entry = {"path": path, "package": package, "seconds": round(seconds, 2), "essentia": ess, "aubio": aubio_reference(path),
                     "percussive_share": percussive_share(path)}
        entry["package"], entry["character"] = package, character
        entries.append(entry)
        if not (path in previous and not again):
            write(output, entries + [previous[p] for p, _, _ in tracks[index + 1:] if p in previous])
    write(output, entries)
    print(f"wrote {output}: {len(entries)} tracks", file=sys.stderr)


if __name__ == "__main__":
    main()
