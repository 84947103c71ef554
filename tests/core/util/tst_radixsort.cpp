#include "util/RadixSort.h"

#include <QtTest>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

using namespace ckpt;

class RadixSortTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sortsAsStdSort_data()
    {
        QTest::addColumn<qint64>("lo");
        QTest::addColumn<qint64>("hi");
        QTest::addColumn<int>("count");
        QTest::newRow("bytes of a sweep") << qint64(0) << (qint64(1) << 40) << 100000;
        QTest::newRow("few distinct") << qint64(3) << qint64(5) << 1000;
        QTest::newRow("full range") << std::numeric_limits<qint64>::min() << std::numeric_limits<qint64>::max() << 20000;
        QTest::newRow("around zero") << qint64(-300) << qint64(300) << 5000;
        QTest::newRow("one value") << qint64(7) << qint64(7) << 1;
        QTest::newRow("empty") << qint64(0) << qint64(0) << 0;
    }

    void sortsAsStdSort()
    {
        QFETCH(qint64, lo);
        QFETCH(qint64, hi);
        QFETCH(int, count);
        std::mt19937_64 random(42);
        std::uniform_int_distribution<std::int64_t> pick(lo, hi);
        std::vector<std::int64_t> values(static_cast<std::size_t>(count));
        for (auto& v : values)
            v = pick(random);
        std::vector<std::int64_t> expected = values;
        std::sort(expected.begin(), expected.end());
        radixSort(values);
        QVERIFY(values == expected);
    }
};

QTEST_APPLESS_MAIN(RadixSortTest)
#include "tst_radixsort.moc"
