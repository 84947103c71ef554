"""Models this project had not seen (2026-11-27): a segmentation net with an aux head, a Conformer, a Mamba-style
LM whose selective scan is a loop over time (docs/BENCHMARKS.md, "P31"); then a Llama-style LM, ShuffleNet-V2,
ConvNeXt-T, a tagger on the built-in nn.LSTM and an MLP-Mixer (BENCHMARKS.md, "Never-seen models, second set");
ResNeXt-50, EfficientNet-V2-S, a BERT-style encoder, a convolutional VAE and a wav2vec-style audio encoder (the
third set); Swin-T, RegNetY-400MF, a diffusion U-Net, a GPT-NeoX-style LM and a T5-style encoder-decoder (the fourth
set, 2026-11-29, "Never-seen models, fourth set"); MaxViT, torchvision's ViT and GoogLeNet with its aux heads (the
fifth set, same section); a graph network, a CLIP-style dual encoder and a Llama-style LM called and
checkpointed as Hugging Face does (the sixth set, "Fine-tuning and Hugging Face calls"). For
bench_acceptance.py and bench_optimizer_step.py --module."""
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from models import seeded  # noqa: E402  (tests/python/models.py)


def deeplab():
    return torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=21, aux_loss=True)


class ConvModule(nn.Module):
    def __init__(self, d, k=15):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, k, padding=k // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        y = self.norm(x).transpose(1, 2)
        y = F.glu(self.pw1(y), dim=1)
        y = F.silu(self.bn(self.dw(y)))
        return x + self.drop(self.pw2(y).transpose(1, 2))


class FeedForward(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Dropout(0.1), nn.Linear(4 * d, d))

    def forward(self, x):
        return x + 0.5 * self.net(x)


class ConformerBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ff1, self.ff2 = FeedForward(d), FeedForward(d)
        self.norm = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, dropout=0.1, batch_first=True)
        self.conv = ConvModule(d)
        self.out = nn.LayerNorm(d)

    def forward(self, x):
        x = self.ff1(x)
        y = self.norm(x)
        x = x + self.attn(y, y, y, need_weights=False)[0]
        x = self.conv(x)
        return self.out(self.ff2(x))


class Conformer(nn.Module):
    def __init__(self, mels=80, d=144, heads=4, layers=3, classes=500):
        super().__init__()
        self.sub = nn.Sequential(nn.Conv2d(1, d, 3, 2), nn.ReLU(), nn.Conv2d(d, d, 3, 2), nn.ReLU())
        self.proj = nn.Linear(d * (((mels - 1) // 2 - 1) // 2), d)
        self.blocks = nn.ModuleList(ConformerBlock(d, heads) for _ in range(layers))
        self.head = nn.Linear(d, classes)

    def forward(self, feats):  # (batch, time, mels)
        x = self.sub(feats.unsqueeze(1))
        b, c, t, f = x.shape
        x = self.proj(x.permute(0, 2, 1, 3).reshape(b, t, c * f))
        for block in self.blocks:
            x = block(x)
        return self.head(x).log_softmax(-1)


def conformer():
    return Conformer()


class MambaBlock(nn.Module):
    """A selective-scan block written as people prototype it: a causal depthwise conv, input-dependent
    step sizes, and the recurrence run as a loop over time."""

    def __init__(self, d, state=8, expand=2):
        super().__init__()
        inner = expand * d
        self.norm = nn.LayerNorm(d)
        self.in_proj = nn.Linear(d, 2 * inner)
        self.conv = nn.Conv1d(inner, inner, 4, padding=3, groups=inner)
        self.x_proj = nn.Linear(inner, 1 + 2 * state)
        self.dt_proj = nn.Linear(1, inner)
        self.A_log = nn.Parameter(torch.log(torch.arange(1, state + 1).float()).repeat(inner, 1))
        self.D = nn.Parameter(torch.ones(inner))
        self.out_proj = nn.Linear(inner, d)
        self.state = state

    def forward(self, x):
        b, length, _ = x.shape
        xz = self.in_proj(self.norm(x))
        u, z = xz.chunk(2, dim=-1)
        u = F.silu(self.conv(u.transpose(1, 2))[..., :length].transpose(1, 2))
        dt, B, C = self.x_proj(u).split([1, self.state, self.state], dim=-1)
        dt = F.softplus(self.dt_proj(dt))  # (b, l, inner)
        A = -torch.exp(self.A_log)  # (inner, state)
        h = u.new_zeros(b, u.shape[-1], self.state)
        ys = []
        for t in range(length):
            decay = torch.exp(dt[:, t].unsqueeze(-1) * A)
            h = decay * h + (dt[:, t] * u[:, t]).unsqueeze(-1) * B[:, t].unsqueeze(1)
            ys.append((h * C[:, t].unsqueeze(1)).sum(-1))
        y = torch.stack(ys, dim=1) + u * self.D
        return x + self.out_proj(y * F.silu(z))


class MambaLM(nn.Module):
    def __init__(self, vocab=1000, d=128, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(MambaBlock(d) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def mamba_lm():
    return MambaLM()


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate(x, cos, sin):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


class LlamaBlock(nn.Module):
    def __init__(self, d, heads, hidden):
        super().__init__()
        self.heads = heads
        self.attn_norm, self.ffn_norm = RMSNorm(d), RMSNorm(d)
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.w1, self.w3 = nn.Linear(d, hidden, bias=False), nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def forward(self, x, cos, sin, mask):
        b, t, d = x.shape
        h = self.attn_norm(x)
        q, k, v = (w(h).view(b, t, self.heads, d // self.heads).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads) + mask
        y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.wo(y)
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class LlamaLM(nn.Module):
    def __init__(self, vocab=2000, d=128, heads=4, layers=4, seq=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(LlamaBlock(d, heads, 344) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        half = d // heads // 2
        freqs = 1.0 / (10000 ** (torch.arange(half).float() / half))
        angles = torch.outer(torch.arange(seq).float(), freqs)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)
        self.register_buffer("mask", torch.full((seq, seq), float("-inf")).triu(1), persistent=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.embed(idx)
        cos, sin, mask = self.cos[:t], self.sin[:t], self.mask[:t, :t]
        for block in self.blocks:
            x = block(x, cos, sin, mask)
        return self.head(self.norm(x))


llama_lm = seeded(LlamaLM)


def convnext_tiny():
    return torchvision.models.convnext_tiny()


def shufflenet():
    return torchvision.models.shufflenet_v2_x1_0()


class FirstOutput(nn.Module):
    """The first of what `inner` returns (an nn.LSTM's output, without its final states)."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)[0]


# A bidirectional tagger on the built-in nn.LSTM (the tests' lstm_lm runs one direction).
lstm_builtin = seeded(lambda: nn.Sequential(
    nn.Embedding(1000, 64),
    FirstOutput(nn.LSTM(64, 128, num_layers=2, bidirectional=True, dropout=0.1, batch_first=True)),
    nn.Linear(256, 17)))


class MixerBlock(nn.Module):
    def __init__(self, tokens, d):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, 2 * tokens), nn.GELU(), nn.Linear(2 * tokens, tokens))
        self.channel_mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self, patch=8, size=64, d=128, layers=4, classes=100):
        super().__init__()
        self.stem = nn.Conv2d(3, d, patch, patch)
        tokens = (size // patch) ** 2
        self.blocks = nn.Sequential(*[MixerBlock(tokens, d) for _ in range(layers)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        return self.head(self.norm(self.blocks(x)).mean(1))


def mixer():
    return Mixer()


def resnext():
    return torchvision.models.resnext50_32x4d()


def efficientnet_v2():
    return torchvision.models.efficientnet_v2_s()


class BertLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, bias):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = self.drop(((q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads) + bias).softmax(-1))
        x = self.norm1(x + self.drop(self.out((att @ v).transpose(1, 2).reshape(b, t, d))))
        return self.norm2(x + self.drop(self.ff2(F.gelu(self.ff1(x)))))


class Bert(nn.Module):
    def __init__(self, vocab=3000, d=128, heads=4, layers=4, seq=128):
        super().__init__()
        self.tok, self.pos, self.typ = nn.Embedding(vocab, d), nn.Embedding(seq, d), nn.Embedding(2, d)
        self.norm = nn.LayerNorm(d)
        self.layers = nn.ModuleList(BertLayer(d, heads) for _ in range(layers))
        self.pool = nn.Linear(d, d)
        self.cls = nn.Linear(d, 2)

    def forward(self, ids, types):
        t = ids.shape[1]
        x = self.norm(self.tok(ids) + self.pos.weight[:t] + self.typ(types))
        bias = torch.zeros(ids.shape[0], 1, 1, t)
        for layer in self.layers:
            x = layer(x, bias)
        return self.cls(torch.tanh(self.pool(x[:, 0])))


bert = seeded(Bert)


class VAE(nn.Module):
    def __init__(self, z=64):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 32, 4, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 4, 2, 1), nn.ReLU(),
                                 nn.Conv2d(64, 128, 4, 2, 1), nn.ReLU(), nn.Flatten())
        self.mu, self.logvar = nn.Linear(128 * 8 * 8, z), nn.Linear(128 * 8 * 8, z)
        self.dec_in = nn.Linear(z, 128 * 8 * 8)
        self.dec = nn.Sequential(nn.ConvTranspose2d(128, 64, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(64, 32, 4, 2, 1),
                                 nn.ReLU(), nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Sigmoid())

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(self.dec_in(z).view(-1, 128, 8, 8)), mu, logvar


vae = seeded(VAE)


class Wav2Vec(nn.Module):
    def __init__(self, d=256, layers=2):
        super().__init__()
        convs = [nn.Conv1d(1, 128, 10, 5), nn.GroupNorm(128, 128), nn.GELU()]
        for k in (3, 3, 3, 3, 2, 2):
            convs += [nn.Conv1d(128, 128, k, 2), nn.GELU()]
        self.features = nn.Sequential(*convs)
        self.proj = nn.Linear(128, d)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.1, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, 32)

    def forward(self, wave):
        x = self.features(wave.unsqueeze(1)).transpose(1, 2)
        return self.head(self.encoder(self.proj(x)))


wav2vec = seeded(Wav2Vec)


# The fourth set (2026-11-29): Swin-T (shifted windows: torch.roll, a relative position bias gathered by an
# index buffer, stochastic depth), RegNetY-400MF (grouped convolutions, squeeze-excitation), a diffusion
# U-Net fed images and int64 timesteps (GroupNorm, SiLU, attention at 8x8, concatenated skips), a
# GPT-NeoX-style LM (parallel residual, partial rotary, embedding tied to the head) and a T5-style
# encoder-decoder fed two int64 sequences (relative position buckets computed in the forward, RMSNorm,
# gated GELU, cross-attention).
def swin():
    return torchvision.models.swin_t(num_classes=100)


def regnet():
    return torchvision.models.regnet_y_400mf()


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device).float() / half)
    angles = t.float()[:, None] * freqs[None]
    return torch.cat((angles.sin(), angles.cos()), dim=1)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(8, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.temb = nn.Linear(tdim, cout)
        self.norm2, self.conv2 = nn.GroupNorm(8, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.drop = nn.Dropout(0.1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, temb):
        h = self.conv1(F.silu(self.norm1(x))) + self.temb(temb)[:, :, None, None]
        h = self.conv2(self.drop(F.silu(self.norm2(h))))
        return self.skip(x) + h


class SpatialAttention(nn.Module):
    def __init__(self, c, heads=4):
        super().__init__()
        self.norm = nn.GroupNorm(8, c)
        self.attn = nn.MultiheadAttention(c, heads, batch_first=True)

    def forward(self, x):
        b, c, h, w = x.shape
        y = self.norm(x).flatten(2).transpose(1, 2)
        return x + self.attn(y, y, y, need_weights=False)[0].transpose(1, 2).reshape(b, c, h, w)


class DiffusionUNet(nn.Module):
    def __init__(self, ch=64, tdim=256):
        super().__init__()
        self.tdim = tdim
        self.time = nn.Sequential(nn.Linear(ch, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
        self.stem = nn.Conv2d(3, ch, 3, padding=1)
        self.down1, self.down2 = ResBlock(ch, ch, tdim), ResBlock(ch, 2 * ch, tdim)
        self.pool1, self.pool2 = nn.Conv2d(ch, ch, 3, 2, 1), nn.Conv2d(2 * ch, 2 * ch, 3, 2, 1)
        self.mid1, self.mid_attn, self.mid2 = ResBlock(2 * ch, 2 * ch, tdim), SpatialAttention(2 * ch), \
            ResBlock(2 * ch, 2 * ch, tdim)
        self.up2, self.up1 = ResBlock(4 * ch, ch, tdim), ResBlock(2 * ch, ch, tdim)
        self.out = nn.Sequential(nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, x, t):
        temb = self.time(timestep_embedding(t, self.stem.out_channels))
        h0 = self.down1(self.stem(x), temb)                     # 32x32
        h1 = self.down2(self.pool1(h0), temb)                   # 16x16
        h = self.mid2(self.mid_attn(self.mid1(self.pool2(h1), temb)), temb)  # 8x8
        h = self.up2(torch.cat((F.interpolate(h, scale_factor=2.0), h1), 1), temb)
        h = self.up1(torch.cat((F.interpolate(h, scale_factor=2.0), h0), 1), temb)
        return self.out(h)


diffusion_unet = seeded(DiffusionUNet)


class NeoXBlock(nn.Module):
    def __init__(self, d, heads, rotary):
        super().__init__()
        self.heads, self.rotary = heads, rotary
        self.ln_attn, self.ln_mlp = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.dense = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, cos, sin, mask):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln_attn(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        r = self.rotary
        q = torch.cat((rotate(q[..., :r], cos, sin), q[..., r:]), -1)
        k = torch.cat((rotate(k[..., :r], cos, sin), k[..., r:]), -1)
        att = ((q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)).masked_fill(mask, float("-inf"))
        y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
        return x + self.dense(y) + self.down(F.gelu(self.up(self.ln_mlp(x))))  # the parallel residual


class NeoXLM(nn.Module):
    def __init__(self, vocab=2000, d=128, heads=4, layers=4, seq=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        rotary = d // heads // 4
        self.blocks = nn.ModuleList(NeoXBlock(d, heads, rotary) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        freqs = 1.0 / (10000 ** (torch.arange(rotary // 2).float() / (rotary // 2)))
        angles = torch.outer(torch.arange(seq).float(), freqs)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)
        self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).triu(1), persistent=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x, self.cos[:t], self.sin[:t], self.mask[:t, :t])
        return F.linear(self.norm(x), self.embed.weight)  # tied to the embedding


neox_lm = seeded(NeoXLM)


def relative_buckets(q_len, k_len, buckets=32, max_distance=128, bidirectional=True, device=None):
    """T5's relative position buckets: exact for small distances, logarithmic beyond."""
    rel = torch.arange(k_len, device=device)[None, :] - torch.arange(q_len, device=device)[:, None]
    if bidirectional:
        buckets //= 2
        out = (rel > 0).long() * buckets
        rel = rel.abs()
    else:
        out = torch.zeros_like(rel)
        rel = -torch.clamp(rel, max=0)
    exact = buckets // 2
    large = exact + (torch.log(rel.float().clamp(min=1) / exact) / math.log(max_distance / exact)
                     * (buckets - exact)).long()
    large = torch.clamp(large, max=buckets - 1)
    return out + torch.where(rel < exact, rel, large)


class T5Attention(nn.Module):
    def __init__(self, d, heads, bias=False, bidirectional=True):
        super().__init__()
        self.heads, self.bidirectional = heads, bidirectional
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.bias = nn.Embedding(32, heads) if bias else None

    def position_bias(self, q_len, k_len, device):
        buckets = relative_buckets(q_len, k_len, bidirectional=self.bidirectional, device=device)
        return self.bias(buckets).permute(2, 0, 1)[None]

    def forward(self, x, kv, bias):
        b, t, d = x.shape
        split = lambda y: y.view(b, -1, self.heads, d // self.heads).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.q(x)), split(self.k(kv)), split(self.v(kv))
        att = (q @ k.transpose(-2, -1) + bias).softmax(-1)  # T5 folds the scale into the weights
        return self.o((att @ v).transpose(1, 2).reshape(b, t, d))


class GatedFF(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.norm = RMSNorm(d)
        self.wi0, self.wi1, self.wo = nn.Linear(d, hidden, bias=False), nn.Linear(d, hidden, bias=False), \
            nn.Linear(hidden, d, bias=False)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        h = self.norm(x)
        return x + self.drop(self.wo(F.gelu(self.wi0(h)) * self.wi1(h)))


class T5(nn.Module):
    def __init__(self, vocab=1000, d=128, heads=4, layers=2, hidden=256):
        super().__init__()
        self.shared = nn.Embedding(vocab, d)
        self.enc_attn = nn.ModuleList(T5Attention(d, heads, bias=i == 0) for i in range(layers))
        self.enc_norm = nn.ModuleList(RMSNorm(d) for _ in range(layers))
        self.enc_ff = nn.ModuleList(GatedFF(d, hidden) for _ in range(layers))
        self.dec_self = nn.ModuleList(T5Attention(d, heads, bias=i == 0, bidirectional=False) for i in range(layers))
        self.dec_cross = nn.ModuleList(T5Attention(d, heads) for _ in range(layers))
        self.dec_norm1 = nn.ModuleList(RMSNorm(d) for _ in range(layers))
        self.dec_norm2 = nn.ModuleList(RMSNorm(d) for _ in range(layers))
        self.dec_ff = nn.ModuleList(GatedFF(d, hidden) for _ in range(layers))
        self.enc_final, self.dec_final = RMSNorm(d), RMSNorm(d)
        self.d = d

    def forward(self, src, tgt):
        x = self.shared(src)
        bias = self.enc_attn[0].position_bias(src.shape[1], src.shape[1], src.device)
        for attn, norm, ff in zip(self.enc_attn, self.enc_norm, self.enc_ff):
            h = norm(x)
            x = ff(x + attn(h, h, bias))
        memory = self.enc_final(x)
        t = tgt.shape[1]
        causal = torch.full((t, t), float("-inf"), device=tgt.device).triu(1)
        self_bias = self.dec_self[0].position_bias(t, t, tgt.device) + causal
        y = self.shared(tgt)
        for attn, cross, n1, n2, ff in zip(self.dec_self, self.dec_cross, self.dec_norm1, self.dec_norm2,
                                           self.dec_ff):
            h = n1(y)
            y = y + attn(h, h, self_bias)
            y = ff(y + cross(n2(y), memory, 0.0))
        return F.linear(self.dec_final(y) * self.d ** -0.5, self.shared.weight)


t5 = seeded(T5)


# The fifth set (2026-11-29): torchvision's MaxViT at a small size (MBConv, block and grid attention
# through window partitions, stochastic depth), torchvision's VisionTransformer (the class token, the
# position embedding as a parameter, nn.MultiheadAttention's fused path, dropout) and GoogLeNet with its
# two auxiliary heads (three outputs, concatenated inception branches, max pooling).
def maxvit():
    return torchvision.models.MaxVit(input_size=(64, 64), stem_channels=32, partition_size=4,
                                     block_channels=[32, 64], block_layers=[1, 1], head_dim=16,
                                     stochastic_depth_prob=0.1, num_classes=100)


def vit_tv():
    return torchvision.models.VisionTransformer(image_size=64, patch_size=8, num_layers=4, num_heads=4,
                                                hidden_dim=192, mlp_dim=768, num_classes=100, dropout=0.1)


def googlenet():
    return torchvision.models.googlenet(weights=None, aux_logits=True, init_weights=True)


# The sixth set (2026-11-29, third session): a graph network that gathers and scatter-adds along an
# edge list (int64 input), a CLIP-style dual encoder whose loss compares every image with every text
# (a batch-by-batch matrix, labels made in the forward), and a Llama-style LM as Hugging Face trains it:
# called with keyword arguments, an attention mask it tests and leaves out when it is all ones, and
# its own reentrant gradient checkpointing on every block.
class GCNLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.linear = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, edges):
        source, target = edges[0], edges[1]
        messages = self.linear(x).index_select(0, source)
        gathered = torch.zeros_like(x).index_add_(0, target, messages)
        degree = torch.zeros(x.shape[0], device=x.device).index_add_(0, target, torch.ones_like(target, dtype=x.dtype))
        return x + F.gelu(self.norm(gathered / degree.clamp(min=1)[:, None]))


class GCN(nn.Module):
    def __init__(self, features=64, dim=128, layers=4, classes=16):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.layers = nn.ModuleList(GCNLayer(dim) for _ in range(layers))
        self.head = nn.Linear(dim, classes)

    def forward(self, x, edges):
        h = self.embed(x)
        for layer in self.layers:
            h = layer(h, edges)
        return self.head(h)


gcn = seeded(GCN)


class CLIP(nn.Module):
    def __init__(self, dim=128, vocab=1000, length=16):
        super().__init__()
        self.image = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.GELU(), nn.Conv2d(32, 64, 3, 2, 1), nn.GELU(),
                                   nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, dim))
        self.tokens = nn.Embedding(vocab, dim)
        self.position = nn.Parameter(torch.zeros(length, dim))
        self.text = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, 4 * dim, batch_first=True), 2)
        self.projection = nn.Linear(dim, dim)
        self.scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, images, texts):
        a = F.normalize(self.image(images), dim=-1)
        t = self.text(self.tokens(texts) + self.position[: texts.shape[1]])
        b = F.normalize(self.projection(t.mean(1)), dim=-1)
        logits = self.scale.exp() * a @ b.t()
        labels = torch.arange(logits.shape[0], device=logits.device)
        return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2


clip = seeded(CLIP)


class HFStyleLM(LlamaLM):
    """The Llama-style LM called as Hugging Face models are: `model(input_ids=, attention_mask=, labels=)`,
    the mask left out when it is all ones (SDPA's causal path), every block checkpointed by the model itself."""

    def forward(self, input_ids, attention_mask=None, labels=None):
        x = self.embed(input_ids)
        t = input_ids.shape[1]
        cos, sin = self.cos[:t], self.sin[:t]
        mask = self.mask[:t, :t]
        if attention_mask is not None and not bool((attention_mask == 1).all()):
            mask = mask + (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -1e4
        for block in self.blocks:
            if self.training:
                x = torch.utils.checkpoint.checkpoint(block, x, cos, sin, mask)
            else:
                x = block(x, cos, sin, mask)
        logits = self.head(self.norm(x))
        return F.cross_entropy(logits[:, :-1].flatten(0, 1), labels[:, 1:].flatten())


hf_style_lm = seeded(HFStyleLM)
