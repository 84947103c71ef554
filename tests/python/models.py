"""Models for the Python package's tests, as users write them: torchvision CNNs, a ViT-like encoder
(nn.TransformerEncoder, batch_first) and a nanoGPT-style causal LM fed int64 tokens. Each factory takes
no argument (the `FILE.py:FACTORY` form of `python3 -m checkpoint_explorer`)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


def seeded(build):
    """A factory that builds with torch's generator seeded, so every run starts from the same weights."""
    def factory():
        torch.manual_seed(0)
        return build()
    return factory


def _torchvision(builder, **options):
    """A factory of torchvision's `builder` with 10 classes."""
    return lambda: getattr(torchvision.models, builder)(num_classes=10, **options)


resnet18 = _torchvision("resnet18")
densenet121 = _torchvision("densenet121")
mobilenet_v2 = _torchvision("mobilenet_v2")
# No auxiliary head (train mode would return a tuple) and no scipy-based weight init.
inception_v3 = _torchvision("inception_v3", aux_logits=False, init_weights=False)
# The efficient-style net: depthwise convolutions, SiLU, squeeze-excitation, stochastic depth.
efficientnet_b0 = _torchvision("efficientnet_b0")

# More torchvision models, measured in docs/BENCHMARKS.md ("Python package"), none of them tuned for.
resnet50 = _torchvision("resnet50")
googlenet = _torchvision("googlenet", aux_logits=False, init_weights=False)
shufflenet_v2 = _torchvision("shufflenet_v2_x1_0")
squeezenet = _torchvision("squeezenet1_0")
mobilenet_v3 = _torchvision("mobilenet_v3_small")
mnasnet = _torchvision("mnasnet0_5")
regnet = _torchvision("regnet_y_400mf")
convnext_tiny = _torchvision("convnext_tiny")
vit_b_16 = _torchvision("vit_b_16", image_size=64)
swin_t = _torchvision("swin_t")


class ViT(nn.Module):
    """Patch embedding, learned positions, a TransformerEncoder (batch_first, GELU, dropout), a head."""

    def __init__(self, patch=8, dim=64, depth=2, heads=4, classes=10, image=32):
        super().__init__()
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.position = nn.Parameter(torch.zeros(1, (image // patch) ** 2, dim))
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 2, dropout=0.1, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, images):
        x = self.embed(images).flatten(2).transpose(1, 2) + self.position
        x = self.encoder(x)
        return self.head(self.norm(x).mean(dim=1))


def vit():
    return ViT()


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, block):
        super().__init__()
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.attn_dropout = nn.Dropout(0.1)
        self.resid_dropout = nn.Dropout(0.1)
        self.n_head = heads
        self.register_buffer("bias", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, dim, heads, block):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, block)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim), nn.Dropout(0.1))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab=100, block=32, layers=2, heads=4, dim=32):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab, dim), wpe=nn.Embedding(block, dim), drop=nn.Dropout(0.1),
            h=nn.ModuleList([Block(dim, heads, block) for _ in range(layers)]), ln_f=nn.LayerNorm(dim)))
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.transformer.wte.weight = self.lm_head.weight

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        if targets is None:
            return logits
        # nanoGPT's training interface: `logits, loss = model(x, y)`.
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


def gpt():
    return GPT()


class KeywordLM(nn.Module):
    """Called as Hugging Face causal LMs are, `model(input_ids=..., attention_mask=..., labels=...)` or
    `model(**batch)`, returning a mapping with the loss where labels are given (a tuple for
    `return_dict=False`); padded positions (mask 0) predict nothing."""

    def __init__(self):
        super().__init__()
        self.gpt = GPT(vocab=1000, block=64, layers=2, heads=4, dim=64)

    def forward(self, input_ids, attention_mask=None, labels=None, return_dict=True):
        logits = self.gpt(input_ids)
        if attention_mask is not None:
            logits = logits * attention_mask[..., None]
        out = {"logits": logits}
        if labels is not None:
            out = {"loss": F.cross_entropy(logits.flatten(0, 1), labels.flatten()), "logits": logits}
        return out if return_dict else tuple(out.values())


keyword_lm = seeded(KeywordLM)


class LoRA(nn.Module):
    """A frozen linear layer with a trained low-rank update (Hu et al., 2021), as PEFT adds it."""

    def __init__(self, base, rank=4):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.a = nn.Linear(base.in_features, rank, bias=False)
        self.b = nn.Linear(rank, base.out_features, bias=False)
        nn.init.zeros_(self.b.weight)

    def forward(self, x):
        return self.base(x) + self.b(self.a(x))


def lora_gpt():
    """gpt_bench fine-tuned with LoRA on its attention projections: every other weight frozen."""
    torch.manual_seed(0)
    model = gpt_bench().requires_grad_(False)
    for block in model.transformer.h:
        block.attn.c_attn, block.attn.c_proj = LoRA(block.attn.c_attn), LoRA(block.attn.c_proj)
    return model


class FrozenBackbone(nn.Module):
    """Fine-tuning a head on a backbone run in torch.no_grad(): the backbone's weights get no gradient."""

    def __init__(self):
        super().__init__()
        self.backbone = torchvision.models.resnet18(num_classes=10)
        self.backbone.fc = nn.Identity()
        self.head = nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        with torch.no_grad():
            features = self.backbone(x)
        return self.head(features)


frozen_backbone = seeded(FrozenBackbone)


def _frozen_resnet():
    """Fine-tuning the last stage: ResNet-18 with its stem and layer1-3 frozen (requires_grad off)."""
    model = torchvision.models.resnet18(num_classes=10)
    for name, p in model.named_parameters():
        p.requires_grad_(name.startswith(("layer4", "fc")))
    return model


frozen_resnet = seeded(_frozen_resnet)


def gpt_bench():
    """Benchmark size (BENCHMARKS.md): 4 layers, d=128, 128 tokens, vocab 1000."""
    return GPT(vocab=1000, block=128, layers=4, heads=4, dim=128)


def vit_bench():
    """Benchmark size (BENCHMARKS.md): 64x64 images, 64 patches, 4 layers, d=128."""
    return ViT(patch=8, dim=128, depth=4, heads=4, image=64)


class BiasedAttention(nn.Module):
    """Pre-norm attention whose position bias an MLP makes from a coordinate buffer, from parameters
    alone (Swin-V2's continuous position bias)."""

    def __init__(self, dim, heads, seq):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.bias_mlp = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, heads))
        i = torch.arange(seq, dtype=torch.float32) / seq
        self.register_buffer("coords", torch.stack(torch.meshgrid(i, i, indexing="ij"), -1).reshape(-1, 2))

    def forward(self, x):
        b, t, c = x.shape
        bias = self.bias_mlp(self.coords).t().reshape(self.heads, t, t)
        q, k, v = self.qkv(self.norm(x)).reshape(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(c // self.heads) + bias
        y = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, c)
        return x + self.out(y)


class SharedLayer(nn.Module):
    """ALBERT's cross-layer sharing: one encoder layer applied at every depth, the embedding tied to the head."""

    def __init__(self, vocab=500, dim=64, depth=4):
        super().__init__()
        self.depth = depth
        self.embed = nn.Embedding(vocab, dim)
        self.layer = nn.TransformerEncoderLayer(dim, 4, dim * 4, dropout=0.1, batch_first=True)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, ids):
        x = self.embed(ids)
        for _ in range(self.depth):
            x = self.layer(x)
        return self.head(x)


def shared_layer():
    return SharedLayer()


class EncoderDecoder(nn.Module):
    """T5's and BART's tying: one embedding read by the encoder, by the decoder in the middle of the
    network (here of the reversed ids) and by the output layer."""

    def __init__(self, vocab=2000, dim=64, layers=1, block=32):
        super().__init__()
        self.shared = nn.Embedding(vocab, dim)
        self.encoder = nn.Sequential(*[Block(dim, 4, block) for _ in range(layers)])
        self.decoder = nn.Sequential(*[Block(dim, 4, block) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.shared.weight

    def forward(self, ids):
        memory = self.encoder(self.shared(ids))
        return self.lm_head(self.ln(self.decoder(self.shared(ids.flip(1)) + memory)))


def encoder_decoder():
    return EncoderDecoder()


class Seq2Seq(nn.Module):
    """nn.Transformer as published (encoder, decoder with cross-attention, dropout), fed source and
    target ids: the decoder's self-attention needs the target alone, so a plan can start it before
    the encoder is done."""

    def __init__(self, vocab=2000, dim=128, layers=2, block=64):
        super().__init__()
        self.src = nn.Embedding(vocab, dim)
        self.tgt = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, block, dim))
        self.transformer = nn.Transformer(dim, 4, layers, layers, 4 * dim, dropout=0.1, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, src, tgt):
        t = tgt.shape[1]
        mask = torch.triu(torch.full((t, t), float("-inf"), device=tgt.device), 1)
        return self.head(self.transformer(self.src(src) + self.pos, self.tgt(tgt) + self.pos, tgt_mask=mask))


seq2seq = seeded(Seq2Seq)


class UNet(nn.Module):
    """Ronneberger et al.'s U-Net, two levels: each skip is concatenated with the upsampled path."""

    def __init__(self, width=8, depth=2):
        super().__init__()
        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))
        self.down, self.up, self.fuse = nn.ModuleList(), nn.ModuleList(), nn.ModuleList()
        c = 3
        for i in range(depth):
            self.down.append(block(c, width << i))
            c = width << i
        self.mid = block(c, c * 2)
        c *= 2
        for i in reversed(range(depth)):
            self.up.append(nn.ConvTranspose2d(c, width << i, 2, stride=2))
            self.fuse.append(block(width << (i + 1), width << i))
            c = width << i
        self.head = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        skips = []
        for down in self.down:
            x = down(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.mid(x)
        for up, fuse in zip(self.up, self.fuse):
            x = fuse(torch.cat([up(x), skips.pop()], 1))
        return self.head(x)


def unet():
    return UNet()


class WeightNormNet(nn.Module):
    """Convolutions reparametrised by nn.utils.weight_norm, as audio and GAN models are: a pre-hook computes
    each weight from `weight_g` and `weight_v`, a tensor autograd made, which copy.deepcopy refuses."""

    def __init__(self):
        super().__init__()
        wn = nn.utils.weight_norm
        self.body = nn.Sequential(wn(nn.Conv2d(3, 16, 3, padding=1)), nn.LeakyReLU(0.2),
                                  wn(nn.Conv2d(16, 16, 3, padding=1)), nn.LeakyReLU(0.2),
                                  wn(nn.Conv2d(16, 3, 3, padding=1)))

    def forward(self, x):
        return F.mse_loss(self.body(x), x)


weight_norm_net = seeded(WeightNormNet)


class SharedWeightNorm(nn.Module):
    """One weight-normed convolution applied three times (a universal or recurrent block): each call's
    pre-hook makes the weight again, three statics over `weight_g` and `weight_v`, and the last call's
    node forms their gradients first (P87)."""

    def __init__(self, ch=16):
        super().__init__()
        self.inp = nn.Conv1d(4, ch, 1)
        self.conv = nn.utils.weight_norm(nn.Conv1d(ch, ch, 3, padding=1))
        self.out = nn.Conv1d(ch, 2, 1)

    def forward(self, x):
        h = self.inp(x)
        for _ in range(3):
            h = h + F.relu(self.conv(h))
        return self.out(h)


shared_weight_norm = seeded(SharedWeightNorm)


class ConvAutoencoder(nn.Module):
    """Weight-normalised strided convolutions down, transposed convolutions and in-place ReLUs up, the
    reconstruction loss returned: each decoder step is one vertex whose ReLU saved its output."""

    def __init__(self):
        super().__init__()
        wn = nn.utils.weight_norm
        self.encoder = nn.Sequential(wn(nn.Conv2d(3, 32, 4, 2, 1)), nn.LeakyReLU(0.2, inplace=True),
                                     wn(nn.Conv2d(32, 64, 4, 2, 1)), nn.LeakyReLU(0.2, inplace=True),
                                     wn(nn.Conv2d(64, 128, 4, 2, 1)), nn.Tanh())
        self.decoder = nn.Sequential(nn.ConvTranspose2d(128, 64, 4, 2, 1), nn.ReLU(inplace=True),
                                     nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.ReLU(inplace=True),
                                     nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Sigmoid())

    def forward(self, x):
        return F.mse_loss(self.decoder(self.encoder(x)), x)


conv_autoencoder = seeded(ConvAutoencoder)


class ESPCN(nn.Module):
    """Super-resolution by sub-pixel convolution (Shi et al. 2016): tanh features, PixelShuffle, and a
    final sigmoid, whose output is the model's and which its own backward saves."""

    def __init__(self, scale=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 64, 5, padding=2), nn.Tanh(), nn.Conv2d(64, 32, 3, padding=1), nn.Tanh(),
                                  nn.Conv2d(32, 3 * scale * scale, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        return torch.sigmoid(self.shuffle(self.body(x)))


espcn = seeded(ESPCN)


class ChannelsLastResNet(nn.Module):
    """torchvision's ResNet-18 with weights and input channels-last (NHWC), as `torch.channels_last` training
    of CNNs runs: each backward hands its input gradient channels-last too."""

    def __init__(self):
        super().__init__()
        self.net = torchvision.models.resnet18(num_classes=10).to(memory_format=torch.channels_last)

    def forward(self, x):
        return self.net(x.contiguous(memory_format=torch.channels_last))


channels_last_resnet = seeded(ChannelsLastResNet)


class ChannelsLastHead(nn.Module):
    """A dense-prediction head on channels-last features: the model's output is a convolution's,
    channels-last, and the loss's mean hands it a contiguous gradient, which the convolution's
    backward copies to its own layout (P78)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(32, 64, 1))

    def forward(self, x):
        return self.body(x.contiguous(memory_format=torch.channels_last))


channels_last_head = seeded(ChannelsLastHead)


class HardswishHead(nn.Module):
    """MobileNetV3's classifier, wide: a linear layer under an in-place hardswish, which saves a copy of
    its input, and an in-place dropout, which saves its mask (one vertex). Its backward lets both go,
    and its gradient, before the linear layer's node forms the weights' gradients (P81): the step's
    peak, where the weights' gradients (1 MB) are the most of it."""

    def __init__(self, features=64, hidden=4096, classes=10):
        super().__init__()
        self.classifier = nn.Sequential(nn.Linear(features, hidden), nn.Hardswish(inplace=True),
                                        nn.Dropout(0.2, inplace=True), nn.Linear(hidden, classes))

    def forward(self, x):
        return self.classifier(x)


hardswish_head = seeded(HardswishHead)


class LSTMLM(nn.Module):
    """A two-layer LSTM language model with dropout between the layers. On CPU nn.LSTM runs as cells
    whose gates start from the initial state, zeros: `addmm(b_hh, h0, W_hh^T)`, which parameters alone
    compute, updated in place by `add_(x W_ih^T)`."""

    def __init__(self, vocab=500, d=32, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, 2, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids):
        return self.head(self.lstm(self.embed(ids))[0])


lstm_lm = seeded(LSTMLM)


class Scan(nn.Module):
    """A recurrence written as a loop over time, as selective-scan (Mamba-style) prototypes are: each
    step reads its slice of two projections through views (`dt[:, t]` twice, `u.select(1, t)`), and its
    backward adds a zero-padded gradient of the whole projection into the sum the later steps formed."""

    def __init__(self, d=32, inner=128):
        super().__init__()
        self.a = nn.Linear(d, inner)
        self.b = nn.Linear(d, inner)
        self.out = nn.Linear(inner, d)

    def forward(self, x):
        u = self.a(x)
        dt = F.softplus(self.b(x))
        h = u.new_zeros(u.shape[0], u.shape[-1])
        ys = []
        for t in range(x.shape[1]):
            h = torch.exp(-dt[:, t]) * h + dt[:, t] * u.select(1, t)
            ys.append(h)
        return self.out(torch.stack(ys, dim=1))


scan = seeded(Scan)


class GRUTagger(nn.Module):
    """A bidirectional GRU tagging each token. A GRU cell updates chunks of its hidden gates in place
    (`unsafe_chunk(3)` of `addmm(b_hh, h, W_hh^T)`), and autograd copies the last chunk before `mul_`
    overwrites it."""

    def __init__(self, vocab=500, d=64, hidden=128, tags=17):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.gru = nn.GRU(d, hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        return self.head(self.gru(self.embed(ids))[0])


gru_tagger = seeded(GRUTagger)


def position_bias():
    return nn.Sequential(*[BiasedAttention(32, 8, 32) for _ in range(4)])


class SharedBiasViT(nn.Module):
    """BEiT's shared relative position bias: one table, gathered by a buffer of indices once per forward
    into a (heads, tokens, tokens) bias that every block's attention adds."""

    def __init__(self, dim=64, heads=8, depth=4, patch=4, image=32, classes=10):
        super().__init__()
        side = image // patch
        self.heads = heads
        self.patch_embed = nn.Conv2d(3, dim, patch, patch)
        self.table = nn.Parameter(torch.randn((2 * side - 1) ** 2, heads) * 0.02)
        coords = torch.stack(torch.meshgrid(torch.arange(side), torch.arange(side), indexing="ij")).flatten(1)
        relative = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (side - 1)
        self.register_buffer("index", relative[..., 0] * (2 * side - 1) + relative[..., 1])
        self.norms = nn.ModuleList(nn.LayerNorm(dim) for _ in range(depth))
        self.qkvs = nn.ModuleList(nn.Linear(dim, 3 * dim) for _ in range(depth))
        self.outs = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        n = x.shape[1]
        bias = self.table[self.index.view(-1)].view(n, n, -1).permute(2, 0, 1).contiguous()
        for norm, qkv, out in zip(self.norms, self.qkvs, self.outs):
            q, k, v = qkv(norm(x)).reshape(x.shape[0], n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
            attention = (q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5 + bias.unsqueeze(0)).softmax(-1)
            x = x + out((attention @ v).transpose(1, 2).reshape(x.shape))
        return self.head(x.mean(1))


shared_bias = seeded(SharedBiasViT)


class DecayMixer(nn.Module):
    """RWKV's time mixing in parallel form: a per-channel decay over a (tokens, tokens, channels) matrix
    made in the forward from one parameter (its exp saves its result), read by two einsums."""

    def __init__(self, vocab=100, dim=32, depth=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.decays = nn.ParameterList(nn.Parameter(torch.randn(dim) * 0.1) for _ in range(depth))
        self.keys = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))
        self.values = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        t = torch.arange(ids.shape[1], device=ids.device)
        distance = (t[:, None] - t[None, :]).clamp(min=0).float()
        causal = (t[:, None] >= t[None, :]).float()[:, :, None]
        for decay, key, value in zip(self.decays, self.keys, self.values):
            w = torch.exp(-torch.exp(decay)[None, None, :] * distance[:, :, None]) * causal
            k = torch.exp(key(x).clamp(max=20))
            x = x + torch.einsum("tsc,bsc->btc", w, k * value(x)) / torch.einsum("tsc,bsc->btc", w, k)
        return self.head(x)


decay_mixer = seeded(DecayMixer)


class GatedDecayMixer(DecayMixer):
    """RWKV's form of it: a receptance gate multiplies the first einsum before the division, so the two
    einsums feed different vertices (a plan can run them in different checkpointed functions)."""

    def __init__(self, vocab=100, dim=32, depth=2):
        super().__init__(vocab, dim, depth)
        self.gates = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, ids):
        x = self.embed(ids)
        t = torch.arange(ids.shape[1], device=ids.device)
        distance = (t[:, None] - t[None, :]).clamp(min=0).float()
        causal = (t[:, None] >= t[None, :]).float()[:, :, None]
        for decay, key, value, gate in zip(self.decays, self.keys, self.values, self.gates):
            w = torch.exp(-torch.exp(decay)[None, None, :] * distance[:, :, None]) * causal
            k = torch.exp(key(x).clamp(max=20))
            x = x + torch.sigmoid(gate(x)) * torch.einsum("tsc,bsc->btc", w, k * value(x)) / torch.einsum(
                "tsc,bsc->btc", w, k)
        return self.head(x)


gated_decay_mixer = seeded(GatedDecayMixer)


class VectorQuantizer(nn.Module):
    """A VQ-VAE: each encoded vector replaced by its nearest codebook entry (cdist, then argmin, which
    takes no gradient), a straight-through estimator, and the loss returned."""

    def __init__(self, channels=32, codes=64, dim=16):
        super().__init__()
        self.encode = nn.Sequential(nn.Conv2d(3, channels, 4, 2, 1), nn.ReLU(), nn.Conv2d(channels, dim, 1))
        self.codebook = nn.Embedding(codes, dim)
        self.decode = nn.Sequential(nn.ConvTranspose2d(dim, channels, 1), nn.ReLU(),
                                    nn.ConvTranspose2d(channels, 3, 4, 2, 1))

    def forward(self, x):
        z = self.encode(x)
        flat = z.permute(0, 2, 3, 1).reshape(-1, z.shape[1])
        nearest = torch.cdist(flat, self.codebook.weight).argmin(1)
        q = self.codebook(nearest).view(z.shape[0], z.shape[2], z.shape[3], -1).permute(0, 3, 1, 2)
        commitment = F.mse_loss(q, z.detach()) + 0.25 * F.mse_loss(z, q.detach())
        return F.mse_loss(self.decode(z + (q - z).detach()), x) + commitment


vector_quantizer = seeded(VectorQuantizer)


class GatingMLP(nn.Module):
    """gMLP: each block's spatial gating unit splits a gelu output in two, normalises one half, mixes it
    across the tokens and multiplies the other half by it."""

    def __init__(self, vocab=100, dim=32, ffn=128, tokens=32, depth=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(nn.ModuleDict({"norm": nn.LayerNorm(dim), "up": nn.Linear(dim, ffn),
                                                   "gate_norm": nn.LayerNorm(ffn // 2), "mix": nn.Linear(tokens, tokens),
                                                   "down": nn.Linear(ffn // 2, dim)}) for _ in range(depth))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        for block in self.blocks:
            u, v = F.gelu(block["up"](block["norm"](x))).chunk(2, dim=-1)
            v = block["mix"](block["gate_norm"](v).transpose(1, 2)).transpose(1, 2)
            x = x + block["down"](u * v)
        return self.head(x)


gating_mlp = seeded(GatingMLP)


class PoolUnpoolNet(nn.Module):
    """SegNet's encoder-decoder: each max-pooling returns its values and its indices, and the decoder's
    max-unpooling reads the indices alone (the innermost reads both)."""

    def __init__(self, channels=(3, 8, 16)):
        super().__init__()
        pairs = list(zip(channels, channels[1:]))
        self.down = nn.ModuleList(nn.Sequential(nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU())
                                  for a, b in pairs)
        self.up = nn.ModuleList(nn.Sequential(nn.Conv2d(b, a if a != channels[0] else b, 3, padding=1), nn.ReLU())
                                for a, b in reversed(pairs))
        self.head = nn.Conv2d(channels[1], 4, 1)

    def forward(self, x):
        indices = []
        for block in self.down:
            x, i = F.max_pool2d(block(x), 2, 2, return_indices=True)
            indices.append(i)
        for block, i in zip(self.up, reversed(indices)):
            x = block(F.max_unpool2d(x, i, 2, 2))
        return self.head(x)


pool_unpool_net = seeded(PoolUnpoolNet)


class ReluResidualBlock(nn.Module):
    """A residual block as CIFAR ResNets write it: the add and the ReLU after it in the block's own forward."""

    def __init__(self, channels, stride=1):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(channels // stride, channels, 3, stride, 1, bias=False),
                                  nn.BatchNorm2d(channels), nn.ReLU(),
                                  nn.Conv2d(channels, channels, 3, 1, 1, bias=False), nn.BatchNorm2d(channels))
        self.shortcut = nn.Conv2d(channels // stride, channels, 1, stride, bias=False) if stride > 1 else nn.Identity()

    def forward(self, x):
        return F.relu(self.body(x) + self.shortcut(x))


class ReluResidualNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.blocks = nn.Sequential(ReluResidualBlock(16), ReluResidualBlock(32, 2), ReluResidualBlock(32))
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        return self.head(F.adaptive_avg_pool2d(self.blocks(self.stem(x)), 1).flatten(1))


relu_residual_net = seeded(ReluResidualNet)


class StepwiseDecoder(nn.Module):
    """A recurrent decoder that calls its output layer once per step, as a seq2seq model's Python loop does."""

    def __init__(self, vocab=1000, dim=64, steps=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)
        self.steps = steps

    def forward(self, ids):
        x = self.embed(ids)
        h = x.new_zeros(x.shape[0], x.shape[2])
        logits = []
        for t in range(self.steps):
            h = self.cell(x[:, t], h)
            logits.append(self.out(h))
        return torch.stack(logits, 1)


stepwise_decoder = seeded(StepwiseDecoder)


class PackedTagger(nn.Module):
    """An LSTM tagger over padded batches: pack_padded_sequence with lengths from an int64 input, and
    pad_packed_sequence, which fills `full(...)` with the LSTM's output by `copy_`."""

    def __init__(self, vocab=200, dim=32, tags=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, tags)

    def forward(self, ids, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(self.embed(ids), lengths.clamp(min=1).cpu(), batch_first=True,
                                                   enforce_sorted=False)
        out, _ = self.lstm(packed)
        return self.head(nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=ids.shape[1])[0])


packed_tagger = seeded(PackedTagger)


class SpectralNormCritic(nn.Module):
    """A GAN critic with spectral norm: each layer's weight is its `weight_orig` over the largest singular
    value, which a power iteration estimates, updating the buffers u and v in the forward."""

    def __init__(self):
        super().__init__()
        sn = nn.utils.spectral_norm
        self.net = nn.Sequential(sn(nn.Conv2d(3, 32, 3, 1, 1)), nn.LeakyReLU(0.1), sn(nn.Conv2d(32, 64, 4, 2, 1)),
                                 nn.LeakyReLU(0.1), sn(nn.Conv2d(64, 128, 4, 2, 1)), nn.LeakyReLU(0.1))
        self.head = sn(nn.Linear(128 * 8 * 8, 1))

    def forward(self, x):
        return self.head(self.net(x).flatten(1))


spectral_norm_critic = seeded(SpectralNormCritic)


class MemoryLayer(nn.Module):
    """A pre-norm causal attention layer that also attends to a memory of the previous segment."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.o = nn.Linear(dim, dim)
        self.ff = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, memory):
        b, t, d = x.shape
        h = self.norm(x)
        context = torch.cat([memory.detach(), h], dim=1)
        m = context.shape[1] - t
        q = self.q(h).view(b, t, self.heads, -1).transpose(1, 2)
        k, v = self.kv(context).view(b, m + t, 2, self.heads, -1).permute(2, 0, 3, 1, 4)
        mask = torch.ones(t, m + t, dtype=torch.bool, device=x.device).triu(m + 1)
        attention = (q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])).masked_fill(mask, float("-inf")).softmax(-1)
        x = x + self.o((attention @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.ff(x), h


class SegmentMemoryLM(nn.Module):
    """Transformer-XL's recurrence: the previous segment runs without gradient, and each layer's input
    there is the memory the same layer reads in this segment."""

    def __init__(self, vocab=100, dim=32, heads=2, depth=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(MemoryLayer(dim, heads) for _ in range(depth))
        self.head = nn.Linear(dim, vocab)

    def forward(self, previous, tokens):
        with torch.no_grad():
            memories, x = [], self.embed(previous)
            for layer in self.layers:
                x, h = layer(x, x[:, :0])
                memories.append(h)
        x = self.embed(tokens)
        for layer, memory in zip(self.layers, memories):
            x, _ = layer(x, memory)
        return self.head(x)


segment_memory_lm = seeded(SegmentMemoryLM)


class RunningCentre(nn.Module):
    """Centres by a running mean it updates in place from each batch (an EMA, as custom norms and EMA
    codebooks keep one)."""

    def __init__(self, dim):
        super().__init__()
        self.register_buffer("running", torch.zeros(dim))

    def forward(self, x):
        centred = x - self.running
        with torch.no_grad():
            self.running.mul_(0.9).add_(x.mean(dim=(0, 1)), alpha=0.1)
        return centred


class EmaLM(nn.Module):
    def __init__(self, vocab=1000, dim=64, depth=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(nn.ModuleDict({"up": nn.Linear(dim, 4 * dim), "centre": RunningCentre(4 * dim),
                                                   "down": nn.Linear(4 * dim, dim)}) for _ in range(depth))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        for block in self.blocks:
            x = x + block["down"](F.gelu(block["centre"](block["up"](x))))
        return self.head(x)


ema_lm = seeded(EmaLM)


class MaskedEncoder(nn.Module):
    """Fed token ids and a padding mask (1 = token, 0 = padding), as Hugging Face encoders are."""

    def __init__(self, vocab=1000, seq=128, dim=64, heads=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(1, seq, dim))
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(dim, 2)

    def forward(self, ids, mask):
        x = self.tok(ids) + self.pos[:, : ids.shape[1]]
        return self.head(self.encoder(x, src_key_padding_mask=mask == 0)[:, 0])


def masked_encoder():
    return MaskedEncoder()


class TwoHeads(nn.Module):
    """A shared trunk with a classification and a reconstruction head: two outputs."""

    def __init__(self, dim=64, hidden=256, classes=10):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(0.1), nn.Linear(hidden, hidden),
                                   nn.GELU())
        self.classify = nn.Linear(hidden, classes)
        self.reconstruct = nn.Linear(hidden, dim)

    def forward(self, x):
        h = self.trunk(x)
        return self.classify(h), self.reconstruct(h)


def two_heads():
    return TwoHeads()


def not_a_module():
    return 42


class TwoBranches(nn.Module):
    """Two convolutions joined by a concatenation along channels (DenseNet's) or by an add."""

    def __init__(self, join="cat"):
        super().__init__()
        self.join = join
        self.a, self.b = nn.Conv2d(8, 16, 3, padding=1), nn.Conv2d(8, 16, 3, padding=1)
        self.head = nn.Conv2d(32 if join == "cat" else 16, 4, 1)

    def forward(self, x):
        a, b = self.a(x), self.b(x)
        return self.head(torch.cat([a, b], 1) if self.join == "cat" else a + b)


def concatenated_branches():
    return TwoBranches("cat")


def added_branches():
    return TwoBranches("add")


class ReturnsInput(nn.Module):
    def forward(self, x):
        return x


def returns_input():
    return ReturnsInput()


# (factory, input arguments of `python3 -m checkpoint_explorer`, whether it has BatchNorm)
SUITE = {
    "resnet18": (resnet18, ["2x3x64x64"]),
    "densenet121": (densenet121, ["2x3x64x64"]),
    "mobilenet_v2": (mobilenet_v2, ["2x3x64x64"]),
    "vit": (vit, ["2x3x32x32"]),
    "gpt": (gpt, ["2x32:int64:100"]),
}


class GumbelAutoencoder(nn.Module):
    """A discrete VAE's bottleneck (DALL-E's dVAE): a straight-through Gumbel-softmax sample
    (`hard - soft.detach() + soft`) picks codebook vectors by an einsum over the code axis."""

    def __init__(self, tokens=128, dim=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, dim, 4, 2, 1), nn.ReLU(), nn.Conv2d(dim, tokens, 1))
        self.codebook = nn.Embedding(tokens, dim)
        self.decoder = nn.Sequential(nn.ReLU(), nn.ConvTranspose2d(dim, 3, 4, 2, 1))

    def forward(self, x):
        logits = self.encoder(x)
        sample = F.gumbel_softmax(logits, tau=0.9, hard=True, dim=1)
        codes = torch.einsum("bnhw,nd->bdhw", sample, self.codebook.weight)
        return F.mse_loss(self.decoder(codes), x) + 1e-3 * logits.logsumexp(1).mean()


gumbel_autoencoder = seeded(GumbelAutoencoder)


class LatentCrossAttention(nn.Module):
    """A Perceiver: learned latents (a parameter, normalised) attend to the image's patches through
    nn.MultiheadAttention, whose query is not its key, so its packed projection splits into parts the
    statics read (P30); a transformer layer over the latents follows."""

    def __init__(self, d=128, latents=32, heads=4, patch=4, img=32):
        super().__init__()
        self.patch = nn.Conv2d(3, d, patch, patch)
        self.pos = nn.Parameter(torch.randn(1, (img // patch) ** 2, d) * 0.02)
        self.latents = nn.Parameter(torch.randn(latents, d) * 0.02)
        self.cross_norm = nn.LayerNorm(d)
        self.cross = nn.MultiheadAttention(d, heads, batch_first=True)
        self.layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.1, batch_first=True, norm_first=True)
        self.head = nn.Linear(d, 10)

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2) + self.pos
        z = self.latents.expand(img.shape[0], -1, -1)
        z = z + self.cross(self.cross_norm(z), x, x, need_weights=False)[0]
        return self.head(self.layer(z).mean(1))


latent_cross_attention = seeded(LatentCrossAttention)


class CoordinateFeatures(nn.Module):
    """RAFT's first refinement step in small: a coordinate grid made from shapes alone (statics), scaled
    for the level the image is sampled at and for one nothing samples, and features of the grid through
    a convolution and an in-place ReLU (statics a step makes upfront)."""

    def __init__(self):
        super().__init__()
        self.coordinate_conv = nn.Conv2d(2, 8, 3, padding=1)
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Conv2d(16, 2, 1)

    def forward(self, img):
        b, _, h, w = img.shape
        ys, xs = torch.meshgrid(torch.arange(h, device=img.device), torch.arange(w, device=img.device), indexing="ij")
        coords = torch.stack([xs, ys]).float()[None].expand(b, -1, -1, -1)
        scaled = coords / 2
        grid = scaled.permute(0, 2, 3, 1) / (w / 4) - 1
        unsampled = scaled * 4  # noqa: F841  (a pyramid level left unused)
        sampled = F.grid_sample(img, grid, align_corners=True)
        features = F.relu(self.coordinate_conv(coords), inplace=True)
        return self.head(torch.cat([self.conv(sampled), features], 1))


coordinate_features = seeded(CoordinateFeatures)


class InstanceNormBlock(nn.Module):
    """A residual block with InstanceNorm and ReLU(inplace=True), as RAFT's and CycleGAN's encoders have."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.norm = nn.InstanceNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu(x + self.relu(self.norm(self.conv(x))))


class InstanceNormNet(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.blocks = nn.Sequential(*[InstanceNormBlock(channels) for _ in range(3)])
        self.head = nn.Conv2d(channels, 2, 1)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


instance_norm_net = seeded(InstanceNormNet)
