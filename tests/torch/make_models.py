#!/usr/bin/python3
"""Writes the TorchScript test models into a folder: torchvision networks with random
weights (nothing is downloaded), small residual/dense/inception-like networks for the
profiling tests, a small GPT (int64 tokens), a model of two inputs, one with scripted control
flow, and broken files for the importer's error paths.

usage: make_models.py OUT_DIR
"""
import io
import math
import os
import sys
import zipfile

import torch
import torch.nn as nn
import torchvision.models as tvm

torch.manual_seed(0)
torch.set_num_threads(max(1, os.cpu_count() or 1))
out = sys.argv[1]
os.makedirs(out, exist_ok=True)

# name -> (constructor, trace input side)
TRACED = {
    "alexnet": (lambda: tvm.alexnet(), 64),
    "vgg11": (lambda: tvm.vgg11(), 64),
    "vgg16": (lambda: tvm.vgg16(), 64),
    "vgg19": (lambda: tvm.vgg19(), 64),
    "resnet18": (lambda: tvm.resnet18(), 64),
    "resnet50": (lambda: tvm.resnet50(), 64),
    "resnet152": (lambda: tvm.resnet152(), 64),
    "densenet121": (lambda: tvm.densenet121(), 64),
    "densenet201": (lambda: tvm.densenet201(), 64),
    "inception_v3": (lambda: tvm.inception_v3(init_weights=False, aux_logits=False), 299),
    "mobilenet_v2": (lambda: tvm.mobilenet_v2(), 64),
    "squeezenet": (lambda: tvm.squeezenet1_0(), 64),
}


class ResidualReluInplace(nn.Module):
    """RegNet's block ending: an out-of-place residual add under an in-place ReLU, whose backward
    hands both summands one tensor, the ReLU's input gradient (P53, found by ckptx-torch's import)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.f = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                               nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8))
        self.act = nn.ReLU(inplace=True)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = self.act(x + self.f(x))
        return self.fc(x.mean(dim=(2, 3)))


class ChunkCat(nn.Module):
    """ShuffleNet-V2's block without its shuffle: half the channels pass by, the other half through a
    convolution, joined again (P76: the concatenation's group runs its own chunk, whose backward forms
    the stem's gradient beside a zero-filled half while the convolution's slice is still a view)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        a, b = x.chunk(2, dim=1)
        x = torch.cat([a, self.conv(b)], dim=1)
        return self.fc(x.mean(dim=(2, 3)))


class CatReluInplace(nn.Module):
    """Inception-v3's block end: branches of convolution, batch norm and ReLU in place (one vertex each)
    joined by a concatenation that a convolution reads. The first branch's ReLU reads the first slice
    of the concatenation's gradient and runs last of the slices: the engine lets the whole gradient go
    once that ReLU's node has run, before the batch norm's node forms its input's gradient."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.a = nn.Conv2d(8, 8, 1)
        self.a_bn = nn.BatchNorm2d(8)
        self.b = nn.Conv2d(8, 8, 3, padding=1)
        self.b_bn = nn.BatchNorm2d(8)
        self.head = nn.Conv2d(16, 16, 1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        a = torch.relu_(self.a_bn(self.a(x)))
        b = torch.relu_(self.b_bn(self.b(x)))
        x = self.head(torch.cat([a, b], dim=1))
        return self.fc(x.mean(dim=(2, 3)))


class Residual(nn.Module):
    """Two residual blocks, one with a projection shortcut."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.a1 = nn.Conv2d(8, 8, 3, padding=1)
        self.a2 = nn.Conv2d(8, 8, 3, padding=1)
        self.b1 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.b2 = nn.Conv2d(16, 16, 3, padding=1)
        self.proj = nn.Conv2d(8, 16, 1, stride=2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = torch.relu(x + self.a2(torch.relu(self.a1(x))))
        x = torch.relu(self.proj(x) + self.b2(torch.relu(self.b1(x))))
        return self.fc(x.mean(dim=(2, 3)))


class Dense(nn.Module):
    """A dense block: every layer reads the concatenation of all earlier ones."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.layers = nn.ModuleList(nn.Sequential(nn.BatchNorm2d(8 + 4 * i), nn.ReLU(), nn.Conv2d(8 + 4 * i, 4, 3, padding=1))
                                    for i in range(4))
        self.fc = nn.Linear(24, 10)

    def forward(self, x):
        features = [self.stem(x)]
        for layer in self.layers:
            features.append(layer(torch.cat(features, 1)))
        return self.fc(torch.cat(features, 1).mean(dim=(2, 3)))


class InceptionLike(nn.Module):
    """Parallel branches of different depth joined by concatenation, twice."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.b1 = nn.Conv2d(8, 4, 1)
        self.b2 = nn.Sequential(nn.Conv2d(8, 4, 1), nn.ReLU(inplace=True), nn.Conv2d(4, 4, 3, padding=1))
        self.b3 = nn.Sequential(nn.AvgPool2d(3, 1, 1), nn.Conv2d(8, 4, 1))
        self.c1 = nn.Conv2d(12, 6, 1)
        self.c2 = nn.Sequential(nn.Conv2d(12, 6, 3, padding=1), nn.ReLU(), nn.Conv2d(6, 6, 3, padding=1))
        self.fc = nn.Linear(12, 10)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = torch.cat([self.b1(x), self.b2(x), self.b3(x)], 1)
        x = torch.cat([self.c1(x), self.c2(x)], 1)
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def mlp():
    """A plain chain whose activations dominate its memory (no convolution workspaces)."""
    layers = []
    for _ in range(12):
        layers += [nn.Linear(256, 256), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(256, 10))


class TwoInputs(nn.Module):
    """Features and a class id per sample: a float and an int64 input meeting in the middle."""

    def __init__(self):
        super().__init__()
        self.features = nn.Linear(8, 16)
        self.classes = nn.Embedding(5, 16)
        self.out = nn.Linear(16, 4)

    def forward(self, x, label):
        return self.out(torch.relu(self.features(x)) * self.classes(label))


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, block, attn_dropout=0.0):
        super().__init__()
        self.attn_dropout = nn.Dropout(attn_dropout) if attn_dropout > 0 else nn.Identity()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.n_head = heads
        self.n_embd = d
        self.register_buffer("bias", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = self.attn_dropout(nn.functional.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class GptBlock(nn.Module):
    def __init__(self, d, heads, block, dropout, attn_dropout=0.0):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, block, attn_dropout)
        self.ln_2 = nn.LayerNorm(d)
        drop = [nn.Dropout(dropout)] if dropout > 0 else []
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), *drop)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt(nn.Module):
    """A nanoGPT-style causal language model (token + position embeddings, tied head), small:
    vocabulary 100, context 16, 2 layers, width 32. Fed int64 token ids. With dropout, traced in
    training mode (gpt_train): a re-forward must draw the forward's masks again. With nanoGPT's
    dropout of the attention weights too (gpt_attn_dropout): `att @ v` is the last to hold them."""

    def __init__(self, vocab=100, block=16, layers=2, d=32, heads=4, dropout=0.0, attn_dropout=0.0):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.h = nn.ModuleList(GptBlock(d, heads, block, dropout, attn_dropout) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.wte.weight = self.lm_head.weight

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


class RmsNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5))


class RmsLm(nn.Module):
    """A Llama-style LM in small (rms_lm): RMSNorms of several ops, whose squares autograd saves in a
    step and a checkpointed forward frees at once, and a vocabulary large enough that the logits
    outweigh every other tensor."""

    def __init__(self, vocab=2000, d=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.norm_1 = RmsNorm(d)
        self.up = nn.Linear(d, 2 * d, bias=False)
        self.down = nn.Linear(2 * d, d, bias=False)
        self.norm_f = RmsNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.emb(idx)
        x = x + self.down(nn.functional.silu(self.up(self.norm_1(x))))
        return self.head(self.norm_f(x))


class PosTableLm(nn.Module):
    """Token embeddings plus a learned position table sliced to the sequence length (BERT-style;
    pos_table_lm), a layer norm and a head. The slice reads that length from the data, so it is
    a view the add computes as it reads it, not a static."""

    def __init__(self, vocab=100, block=16, d=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, block, d))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, idx):
        return self.head(self.ln(self.emb(idx) + self.pos[:, : idx.size(1)]))


class MiniSegFormer(nn.Module):
    """A SegFormer in small (mini_segformer): patch embeddings read back through a transpose, a
    residual MLP, and a decoder that concatenates an upsampled and a plain branch."""

    def __init__(self):
        super().__init__()
        self.embed1 = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.norm1 = nn.LayerNorm(16)
        self.mlp1 = nn.Linear(16, 16)
        self.embed2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.norm2 = nn.LayerNorm(32)
        self.lin1 = nn.Linear(16, 16)
        self.lin2 = nn.Linear(32, 16)
        self.fuse = nn.Sequential(nn.Conv2d(32, 16, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.cls = nn.Conv2d(16, 5, 1)

    def forward(self, x):
        b = x.shape[0]
        x = self.embed1(x)
        h1, w1 = x.shape[2], x.shape[3]
        t1 = self.norm1(x.flatten(2).transpose(1, 2))
        t1 = t1 + self.mlp1(t1)
        x = self.embed2(t1.transpose(1, 2).reshape(b, 16, h1, w1))
        h2, w2 = x.shape[2], x.shape[3]
        t2 = self.norm2(x.flatten(2).transpose(1, 2))
        d1 = self.lin1(t1).transpose(1, 2).reshape(b, 16, h1, w1)
        d2 = self.lin2(t2).transpose(1, 2).reshape(b, 16, h2, w2)
        d2 = nn.functional.interpolate(d2, size=(h1, w1), mode="bilinear", align_corners=False)
        return self.cls(self.fuse(torch.cat([d2, d1], 1)))


class Permute(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return x.permute(self.dims)


class LayerNorm2d(nn.LayerNorm):
    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = nn.functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.block = nn.Sequential(nn.Conv2d(dim, dim, 7, padding=3, groups=dim), Permute([0, 2, 3, 1]),
                                   nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim),
                                   Permute([0, 3, 1, 2]))
        self.layer_scale = nn.Parameter(torch.full((dim, 1, 1), 0.1))

    def forward(self, x):
        result = self.layer_scale * self.block(x)
        result += x
        return result


class MiniConvNeXt(nn.Module):
    """A ConvNeXt in small (mini_convnext), as torchvision builds it: a patchify stem under a
    channels-last layer norm, and blocks whose layer-scaled branch is added into in place."""

    def __init__(self, dim=16):
        super().__init__()
        self.features = nn.Sequential(nn.Sequential(nn.Conv2d(3, dim, 4, stride=4), LayerNorm2d(dim)),
                                      ConvNeXtBlock(dim), ConvNeXtBlock(dim))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(1), nn.Linear(dim, 10))

    def forward(self, x):
        return self.head(self.features(x))


class HardswishHead(nn.Module):
    """MobileNetV3's classifier in small (hardswish_head): a linear layer under an in-place hardswish,
    which saves a copy of its input, and an in-place dropout, which saves its mask; one vertex at
    module granularity, whose weights' gradients come once both are let go."""

    def __init__(self, dim=16, hidden=64):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, dim, 3, stride=2, padding=1), nn.BatchNorm2d(dim),
                                      nn.Hardswish(inplace=True))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(dim, hidden), nn.Hardswish(inplace=True),
                                        nn.Dropout(0.2, inplace=True), nn.Linear(hidden, 10))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


class Chomp(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = size

    def forward(self, x):
        return x[:, :, :-self.size].contiguous()


class WeightNormTcn(nn.Module):
    """A temporal convolutional network in small (weight_norm_tcn): dilated causal convolutions under
    nn.utils.weight_norm, whose weights autograd computes from `weight_g` and `weight_v` in the forward
    (statics that save tensors for their backward, P20), chomped to causal, with a 1x1 projection as
    the first block's residual."""

    def __init__(self, cin=4, ch=8, levels=2):
        super().__init__()
        wn = nn.utils.weight_norm
        self.blocks = nn.ModuleList()
        self.downs = nn.ModuleList()
        for i in range(levels):
            d = 2 ** i
            self.blocks.append(nn.Sequential(wn(nn.Conv1d(cin if i == 0 else ch, ch, 3, padding=2 * d, dilation=d)),
                                             Chomp(2 * d), nn.ReLU(), nn.Dropout(0.2),
                                             wn(nn.Conv1d(ch, ch, 3, padding=2 * d, dilation=d)), Chomp(2 * d),
                                             nn.ReLU()))
            self.downs.append(nn.Conv1d(cin, ch, 1) if i == 0 else nn.Identity())
        self.head = nn.Linear(ch * 32, 10)

    def forward(self, x):
        for block, down in zip(self.blocks, self.downs):
            x = torch.relu(block(x) + down(x))
        return self.head(x.flatten(1))


class SharedWeightNorm(nn.Module):
    """One weight-normed convolution applied three times (shared_weight_norm), as a universal or
    recurrent block: each call makes its weight from `weight_g` and `weight_v` again (three statics),
    so the last call's static node forms their gradients first and the other two add theirs."""

    def __init__(self, ch=8):
        super().__init__()
        self.inp = nn.Conv1d(4, ch, 1)
        self.conv = nn.utils.weight_norm(nn.Conv1d(ch, ch, 3, padding=1))
        self.head = nn.Linear(ch * 32, 10)

    def forward(self, x):
        h = self.inp(x)
        for _ in range(3):
            h = h + torch.relu(self.conv(h))
        return self.head(h.flatten(1))


class IndexPairs(nn.Module):
    """A DLRM-style interaction in small (index_pairs): embedding bags summed from int64 ids, and the
    pairwise dot products picked by int64 buffers of indices, which must stay integers."""

    def __init__(self, rows=50, dim=8, tables=3):
        super().__init__()
        self.bags = nn.ModuleList([nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables)])
        self.bottom = nn.Linear(6, dim)
        n = tables + 1
        pairs = torch.tril_indices(n, n, -1)
        self.register_buffer("li", pairs[0].clone())
        self.register_buffer("lj", pairs[1].clone())
        self.top = nn.Linear(dim + n * (n - 1) // 2, 1)

    def forward(self, dense, sparse):
        x = torch.relu(self.bottom(dense))
        t = torch.stack([x] + [bag(sparse[:, i]) for i, bag in enumerate(self.bags)], 1)
        z = torch.bmm(t, t.transpose(1, 2))[:, self.li, self.lj]
        return self.top(torch.cat([x, z], 1))


class MaskedPatches(nn.Module):
    """MAE's masking in small (masked_patches): patches unfolded from the image (views of the input,
    then one copy), a random quarter of them kept by argsort and gather, and a loss weighted by a mask
    made of ones, which carries no gradient: autograd neither saves it nor sends it one."""

    def __init__(self, patch=4, dim=32):
        super().__init__()
        self.patch, self.dim = patch, dim
        self.embed = nn.Linear(3 * patch * patch, dim)
        self.decode = nn.Linear(dim, 3 * patch * patch)

    def forward(self, imgs):
        B, p = imgs.shape[0], self.patch
        patches = imgs.unfold(2, p, p).unfold(3, p, p).permute(0, 2, 3, 4, 5, 1).reshape(B, -1, 3 * p * p)
        L = patches.shape[1]
        keep = L // 4
        shuffle = torch.argsort(torch.rand(B, L), dim=1)
        restore = torch.argsort(shuffle, dim=1)
        x = torch.gather(self.embed(patches), 1, shuffle[:, :keep, None].expand(-1, -1, self.dim))
        mask = torch.ones(B, L)
        mask[:, :keep] = 0
        mask = torch.gather(mask, 1, restore)
        tokens = torch.cat([x, torch.zeros(B, L - keep, self.dim)], 1)
        pred = self.decode(torch.gather(tokens, 1, restore[:, :, None].expand(-1, -1, self.dim)))
        return ((pred - patches) ** 2).mean(-1) * mask


class TokenMixer(nn.Module):
    """An MLP-Mixer in small (token_mixer): a patchify stem read as tokens through a transpose, and in
    each block an MLP mixing the tokens of the norm's output read back through a transpose, whose
    output a residual add reads through another: the add's gradient reaches the MLP's last linear
    layer as a transposed view, which its backward copies to fold it while the stem's summand still
    holds what it views."""

    def __init__(self, dim=32, tokens=16, depth=2):
        super().__init__()
        self.stem = nn.Conv2d(3, dim, 4, 4)
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            mix = nn.Sequential(nn.Linear(tokens, 2 * tokens), nn.GELU(), nn.Linear(2 * tokens, tokens))
            self.blocks.append(nn.ModuleList([nn.LayerNorm(dim), mix, nn.LayerNorm(dim), nn.Linear(dim, dim)]))
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        for n1, mix, n2, channels in self.blocks:
            x = x + mix(n1(x).transpose(1, 2)).transpose(1, 2)
            x = x + channels(nn.functional.gelu(n2(x)))
        return self.head(x.mean(1))


class ControlFlow(nn.Module):
    """Scripted control flow: a loop and a shape-dependent branch (prim::Loop, prim::If)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        for _ in range(3):
            x = torch.relu(self.fc(x))
        if x.dim() == 2:
            x = x * 2.0
        else:
            x = x.mean(0)
        return self.head(x)


class Identity(nn.Module):
    def forward(self, x):
        return x


def trace(model, side):
    model.eval()
    with torch.no_grad():
        return torch.jit.trace(model, torch.randn(1, 3, side, side), check_trace=False)


def save(module, name):
    torch.jit.save(module, os.path.join(out, name + ".pt"))


only = set(sys.argv[2:])
for name, (make, side) in TRACED.items():
    if not only or name in only:
        save(trace(make(), side), name)
for name, cls in (("residual", Residual), ("residual_relu_inplace", ResidualReluInplace), ("chunk_cat", ChunkCat),
                  ("cat_relu_inplace", CatReluInplace),
                  ("dense", Dense), ("inception_like", InceptionLike)):
    save(trace(cls(), 16), name)
model = mlp().eval()
with torch.no_grad():
    save(torch.jit.trace(model, torch.randn(4, 256), check_trace=False), "mlp")
save(torch.jit.script(tvm.resnet18().eval()), "resnet18_scripted")
save(torch.jit.script(Gpt().eval()), "gpt")
# Traced in training mode, so its graph keeps the dropouts (the importer puts scripted modules in eval mode).
save(torch.jit.trace(Gpt(dropout=0.5).train(), torch.randint(0, 100, (2, 16)), check_trace=False), "gpt_train")
save(torch.jit.trace(Gpt(attn_dropout=0.1).train(), torch.randint(0, 100, (2, 16)), check_trace=False),
     "gpt_attn_dropout")
save(torch.jit.trace(PosTableLm().train(), torch.randint(0, 100, (2, 8)), check_trace=False), "pos_table_lm")
save(torch.jit.trace(RmsLm().train(), torch.randint(0, 2000, (4, 32)), check_trace=False), "rms_lm")
save(torch.jit.trace(MiniSegFormer().train(), torch.randn(4, 3, 32, 32), check_trace=False), "mini_segformer")
save(torch.jit.trace(MiniConvNeXt().train(), torch.randn(4, 3, 32, 32), check_trace=False), "mini_convnext")
save(torch.jit.trace(HardswishHead().train(), torch.randn(4, 3, 32, 32), check_trace=False), "hardswish_head")
save(torch.jit.trace(WeightNormTcn().train(), torch.randn(4, 4, 32), check_trace=False), "weight_norm_tcn")
save(torch.jit.trace(SharedWeightNorm().train(), torch.randn(4, 4, 32), check_trace=False), "shared_weight_norm")
save(torch.jit.trace(IndexPairs().train(), (torch.randn(4, 6), torch.randint(0, 50, (4, 3, 2))), check_trace=False),
     "index_pairs")
save(torch.jit.trace(MaskedPatches().train(), torch.randn(4, 3, 16, 16), check_trace=False), "masked_patches")
save(torch.jit.trace(TokenMixer().train(), torch.randn(4, 3, 16, 16), check_trace=False), "token_mixer")
# Spectral norm traced in training mode: the trace keeps its power iteration's `out=` writes into the
# buffers but not the `torch.no_grad()` around them, so it cannot be trained (TorchScript refuses too).
save(torch.jit.trace(nn.utils.spectral_norm(nn.Linear(8, 8)).train(), torch.randn(4, 8), check_trace=False),
     "spectral_norm")
save(torch.jit.script(TwoInputs().eval()), "two_inputs")
save(torch.jit.script(ControlFlow().eval()), "control_flow")

# Broken inputs for the importer's error messages.
with open(os.path.join(out, "not_a_zip.pt"), "w") as f:
    f.write("this is not a model\n")
torch.save(nn.Linear(2, 2).state_dict(), os.path.join(out, "state_dict.pt"))
save(torch.jit.script(Identity()), "identity")
buffer = io.BytesIO()
torch.jit.save(torch.jit.script(nn.Linear(2, 2)), buffer)
with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as src, \
        zipfile.ZipFile(os.path.join(out, "newer_pytorch.pt"), "w", zipfile.ZIP_STORED) as dst:
    for item in src.infolist():
        data = src.read(item.filename)
        if item.filename.endswith("/version"):
            data = b"99\n"  # a file format version no LibTorch 1.13 can read
        dst.writestr(item, data)
