#include "graph/Graph.h"
#include "graph/OutOfLine.h"

#include <QtTest>

#include <string>
#include <utility>
#include <vector>

using namespace ckpt;

namespace {

struct Facts {
    int count = 0;
    std::vector<std::string> names;
    bool operator==(const Facts&) const = default;
};

}  // namespace

class OutOfLineTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsTheDefaultWithoutAllocating()
    {
        const OutOfLine<Facts> facts;
        QCOMPARE(facts->count, 0);
        QVERIFY(facts->names.empty());
        QVERIFY(!facts.written());
    }

    void writeAllocatesAndKeepsTheValue()
    {
        OutOfLine<Facts> facts;
        facts.write().names.push_back("a");
        facts.write().count = 3;
        QVERIFY(facts.written());
        QCOMPARE(facts->count, 3);
        QCOMPARE(facts->names, std::vector<std::string>{"a"});
    }

    void assigningTheDefaultStoresNothing()
    {
        OutOfLine<Facts> facts;
        facts = Facts{};
        QVERIFY(!facts.written());
        facts = Facts{2, {"x"}};
        QVERIFY(facts.written());
        QCOMPARE(facts->count, 2);
        facts = Facts{};
        QVERIFY(!facts.written());
    }

    void copiesAreDeep()
    {
        OutOfLine<Facts> a;
        a.write().count = 1;
        OutOfLine<Facts> b = a;
        b.write().count = 2;
        QCOMPARE(a->count, 1);
        QCOMPARE(b->count, 2);
        OutOfLine<Facts> c;
        c = a;
        a.write().names.push_back("later");
        QVERIFY(c->names.empty());
        OutOfLine<Facts> moved = std::move(b);
        QCOMPARE(moved->count, 2);
    }

    void equalityComparesValues()
    {
        OutOfLine<Facts> empty, writtenDefault, other;
        writtenDefault.write();
        other.write().count = 1;
        QVERIFY(empty == writtenDefault);  // nothing written reads as the default
        QVERIFY(!(empty == other));
        OutOfLine<Facts> same;
        same.write().count = 1;
        QVERIFY(other == same);
    }

    void aVertexKeepsItsFactsOutOfLine()
    {
        // What the out-of-line facts are for: a vertex is about half what it was with them inline.
        QVERIFY2(sizeof(Vertex) < sizeof(AutogradFacts) + 64,
                 qPrintable(QStringLiteral("sizeof(Vertex) = %1").arg(sizeof(Vertex))));
        Vertex v;
        v.autograd.write().savedBytes = 8;
        const Vertex copy = v;
        v.autograd.write().savedBytes = 9;
        QCOMPARE(copy.autograd->savedBytes, std::int64_t(8));
        QVERIFY(!(copy == v));
    }
};

QTEST_APPLESS_MAIN(OutOfLineTest)
#include "tst_outofline.moc"
