"""Independent references for RoPE, its scalings, ALiBi and the RoFormer bound: plain loops and NumPy.

Written from the published formulas (RoFormer; Position Interpolation; NTK-aware and
dynamic NTK as in Hugging Face transformers; YaRN with transformers' correction-range
semantics; Llama 3's rope scaling; ALiBi's get_slopes), not from the code under test.
"""

import math

import numpy as np


def plain_inv_freq(d, base):
    return [base ** (-2 * i / d) for i in range(d // 2)]


def linear_inv_freq(d, base, factor):
    return [f / factor for f in plain_inv_freq(d, base)]


def ntk_inv_freq(d, base, factor):
    return plain_inv_freq(d, base * factor ** (d / (d - 2)))


def dynamic_inv_freq(d, base, factor, original, seq_len):
    length = seq_len if seq_len > original else original
    return plain_inv_freq(d, base * ((factor * length / original) - (factor - 1)) ** (d / (d - 2)))


def yarn_inv_freq(d, base, factor, original, beta_fast=32.0, beta_slow=1.0):
    def dim_for(rotations):
        return d * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(dim_for(beta_fast)), 0)
    high = min(math.ceil(dim_for(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    out = []
    for i, theta in enumerate(plain_inv_freq(d, base)):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)  # 0: keep theta, 1: theta / factor
        out.append(theta / factor * ramp + theta * (1 - ramp))
    return out


def llama3_inv_freq(d, base, factor, original, low_freq_factor=1.0, high_freq_factor=4.0):
    out = []
    for theta in plain_inv_freq(d, base):
        wavelength = 2 * math.pi / theta
        if wavelength < original / high_freq_factor:
            out.append(theta)
        elif wavelength > original / low_freq_factor:
            out.append(theta / factor)
        else:
            smooth = (original / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append((1 - smooth) * theta / factor + smooth * theta)
    return out


def rotate(x, m, inv_freq, head_dim, layout):
    """x (D,) rotated to position m, head by head, as complex numbers per pair."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    h = head_dim // 2
    for start in range(0, x.shape[0], head_dim):
        head = x[start:start + head_dim]
        for i in range(h):
            a, b = (head[2 * i], head[2 * i + 1]) if layout == "interleaved" else (head[i], head[i + h])
            z = complex(a, b) * complex(math.cos(m * inv_freq[i]), math.sin(m * inv_freq[i]))
            if layout == "interleaved":
                out[start + 2 * i], out[start + 2 * i + 1] = z.real, z.imag
            else:
                out[start + i], out[start + i + h] = z.real, z.imag
    return out


def roformer_bound(inv_freq, distance):
    """(1 / (d/2)) * sum_j |S_j|, S_j = sum_{k<j} exp(i r theta_k), by a plain loop."""
    total, partial = 0.0, 0j
    for theta in inv_freq:
        partial += complex(math.cos(distance * theta), math.sin(distance * theta))
        total += abs(partial)
    return total / len(inv_freq)


def paper_slopes(n):
    """ALiBi's get_slopes from the paper's reference code, rewritten as a loop."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + paper_slopes(2 * closest)[0::2][: n - closest]


def min_distance(table):
    table = np.asarray(table, dtype=np.float64)
    best = (math.inf, None)
    for i in range(table.shape[0]):
        for j in range(i + 1, table.shape[0]):
            best = min(best, (float(np.linalg.norm(table[i] - table[j])), (i, j)))
    return best
