// PickleReader: the plain-data subset of pickle protocols 2–5, and clear errors (byte offsets)
// for malformed, truncated and hostile pickles.
#include "graph/GraphError.h"
#include "io/PickleReader.h"

#include <QtTest>

#include <limits>

using namespace ckpt;
using namespace std::string_literals;  // the pickles hold NUL bytes
using Kind = PickleValue::Kind;

namespace {

std::string bytes(std::initializer_list<int> values)
{
    std::string out;
    for (int v : values)
        out += static_cast<char>(v);
    return out;
}

}  // namespace

class PickleReaderTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dictOfScalars()
    {
        // {"a": 1, "b": [None, True, 1.5, -1, 300, 70000]} as pickle.dumps(…, protocol=2) spells it.
        const std::string p = "\x80\x02}q\x00(X\x01\x00\x00\x00" "aK\x01X\x01\x00\x00\x00" "b]q\x01(N\x88G"s +
                              bytes({0x3f, 0xf8, 0, 0, 0, 0, 0, 0}) + "J" + bytes({0xff, 0xff, 0xff, 0xff}) +
                              "M" + bytes({0x2c, 0x01}) + "J" + bytes({0x70, 0x11, 0x01, 0x00}) + "eu.";
        const PickleDocument doc = parsePickle(p);
        QCOMPARE(doc.root().kind, Kind::Dict);
        QCOMPARE(doc.member(doc.root(), "a")->integer, 1);
        const PickleValue* list = doc.member(doc.root(), "b");
        QVERIFY(list && list->kind == Kind::List);
        QCOMPARE(int(list->items.size()), 6);
        QCOMPARE(doc.at(list->items[0]).kind, Kind::None);
        QVERIFY(doc.at(list->items[1]).boolean);
        QCOMPARE(doc.at(list->items[2]).number, 1.5);
        QCOMPARE(doc.at(list->items[3]).integer, -1);
        QCOMPARE(doc.at(list->items[4]).integer, 300);
        QCOMPARE(doc.at(list->items[5]).integer, 70000);
        QVERIFY(!doc.member(doc.root(), "c"));
    }

    void longIntegers()
    {
        auto single = [](const std::string& p) { return parsePickle("\x80\x02" + p + ".").root().integer; };
        QCOMPARE(single(bytes({0x8a, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})),
                 std::numeric_limits<std::int64_t>::max());
        QCOMPARE(single(bytes({0x8a, 0x01, 0xff})), -1);
        QCOMPARE(single(bytes({0x8a, 0x00})), 0);
        QCOMPARE(single(bytes({0x8a, 0x06, 0x00, 0x40, 0x1b, 0x3c, 0x3d, 0x7f})), 0x7f3d3c1b4000);  // an address
        QCOMPARE(single(bytes({0x8a, 0x09, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})), -1);
        QCOMPARE(single(bytes({0x8b, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01})), 256);
    }

    void memoSharesValues()
    {
        // [x, x] where x is one memoised string (MEMOIZE, protocol 4), and a list holding itself.
        const PickleDocument shared = parsePickle("\x80\x04]\x94(\x8c\x01x\x94h\x01" "e."s);
        QCOMPARE(int(shared.root().items.size()), 2);
        QCOMPARE(shared.root().items[0], shared.root().items[1]);
        const PickleDocument self = parsePickle("\x80\x02]q\x00h\x00" "a."s);
        QCOMPARE(self.at(self.root().items[0]).kind, Kind::List);
        QCOMPARE(&self.at(self.root().items[0]), &self.root());
    }

    void bytesOfEveryProtocol()
    {
        // protocol 2: _codecs.encode("a\xff", "latin1"); protocol 3: SHORT_BINBYTES.
        const std::string p2 = "\x80\x02" "c_codecs\nencode\nq\x00X\x03\x00\x00\x00" "a\xc3\xbfq\x01X\x06\x00\x00\x00"
                               "latin1q\x02\x86q\x03Rq\x04."s;
        const PickleDocument two = parsePickle(p2);
        QCOMPARE(two.root().kind, Kind::Bytes);
        QCOMPARE(two.root().text, std::string("a\xff"));
        QCOMPARE(parsePickle("\x80\x02" "c__builtin__\nbytes\n)R."s).root().kind, Kind::Bytes);
        QCOMPARE(parsePickle("\x80\x03" "C\x02hi."s).root().text, std::string("hi"));
    }

    void deepNestingNeedsNoRecursion()
    {
        // 100000 lists each inside the next: EMPTY_LIST × n, then APPEND × (n − 1).
        const int n = 100000;
        const std::string p = "\x80\x02" + std::string(n, ']') + std::string(n - 1, 'a') + ".";
        const PickleDocument doc = parsePickle(p);
        const PickleValue* v = &doc.root();
        int depth = 1;
        while (!v->items.empty()) {
            v = &doc.at(v->items[0]);
            ++depth;
        }
        QCOMPARE(depth, n);
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("problem");
        auto row = [](const char* name, const std::string& p, const char* where, const char* problem) {
            QTest::newRow(name) << QByteArray(p.data(), qsizetype(p.size())) << where << problem;
        };
        row("empty", ""s, "byte 0", "truncated");
        row("no stop", "\x80\x02}"s, "byte 3", "without a STOP");
        row("string past the end", "\x80\x02X\xff\x00\x00\x00" "ab."s, "byte 2", "255 bytes, 3 left");
        row("cut in an argument", "\x80\x02J\x01\x02"s, "byte 2", "BININT needs 4 bytes, 2 left");
        row("huge length", std::string("\x80\x04\x8d") + std::string(8, '\xff'), "byte 2", "truncated");
        row("os.system", "\x80\x02" "cos\nsystem\nX\x02\x00\x00\x00lsR."s, "byte 2", "refuses global os.system");
        row("stack global", "\x80\x04\x8c\x08" "builtins\x8c\x04" "eval\x93."s, "byte 18", "refuses global builtins.eval");
        row("newobj", "\x80\x02N)\x81."s, "byte 4", "refuses opcode NEWOBJ");
        row("build", "\x80\x02}}b."s, "byte 4", "refuses opcode BUILD");
        row("text int", "\x80\x02I1\n."s, "byte 2", "refuses opcode INT");
        row("unknown", "\x80\x02\xfe."s, "byte 2", "unknown opcode 0xfe");
        row("protocol 6", "\x80\x06N."s, "byte 0", "protocol 6");
        row("deep marks", "\x80\x02" + std::string(300, '('), "byte 258", "nested deeper than 256");
        row("missing memo", "\x80\x02h\x05."s, "byte 2", "memo entry 5 was never stored");
        row("append to dict", "\x80\x02}K\x01" "a."s, "byte 5", "APPEND on a dict");
        row("odd setitems", "\x80\x02}(K\x01u."s, "byte 6", "odd number");
        row("pop past mark", "\x80\x02N(0."s, "byte 4", "found a MARK");
        row("stop on empty", "\x80\x02."s, "byte 2", "stack is empty");
        row("wide long", bytes({0x80, 0x02, 0x8a, 0x09, 0, 0, 0, 0, 0, 0, 0, 0x80, 0}) + ".", "byte 2",
            "wider than 64 bits");
        row("reduce of bytes with junk", "\x80\x02" "c_codecs\nencode\nK\x01\x85R."s, "byte 21", "needs (str");
    }

    void errors()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(QString, where);
        QFETCH(QString, problem);
        try {
            parsePickle(std::string_view(pickle.constData(), std::size_t(pickle.size())));
            QFAIL("no error");
        } catch (const GraphError& e) {
            QCOMPARE(QString::fromStdString(e.where()), where);
            QVERIFY2(QString::fromStdString(e.problem()).contains(problem), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(PickleReaderTest)
#include "tst_picklereader.moc"
