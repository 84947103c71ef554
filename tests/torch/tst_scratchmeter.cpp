// ScratchMeter, the measure behind the importer's workspace fields (P8, P24), on block reports
// written by hand: what a backward allocates and frees around what it was handed.
#include "torch/ScratchMeter.h"

#include <QtTest>

using ckpt::torchx::ScratchMeter;

class ScratchMeterTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void transientOfOneRun()
    {
        ScratchMeter meter;
        int a = 0, b = 0;
        meter.start();
        meter.allocated(&a, 100);
        meter.allocated(&b, 40);
        meter.freed(&b);
        QCOMPARE(meter.held(), 100);
        QCOMPARE(meter.transient(), 40);
    }

    // Frees of blocks from before start() do not hide allocations.
    void oldFreesDoNotCount()
    {
        ScratchMeter meter;
        int old = 0, a = 0;
        meter.allocated(&old, 500);
        meter.start();
        meter.freed(&old);
        meter.allocated(&a, 30);
        meter.freed(&a);
        QCOMPARE(meter.held(), 0);
        QCOMPARE(meter.transient(), 30);
    }

    // After mark(), frees of what the run held count: a backward that releases a 100-byte saved
    // tensor before it allocates 60 bytes of scratch rises by nothing.
    void markCountsReleasedSaves()
    {
        ScratchMeter meter;
        int saved = 0, scratch = 0, grad = 0;
        meter.start();
        meter.allocated(&saved, 100);
        meter.mark();
        meter.allocated(&scratch, 60);
        meter.freed(&scratch);
        QCOMPARE(meter.transientSinceMark(), 60);
        meter.mark();
        meter.freed(&saved);
        meter.allocated(&scratch, 60);
        meter.freed(&scratch);
        meter.allocated(&grad, 20);  // left: a gradient, not scratch
        QCOMPARE(meter.transientSinceMark(), 0);
    }

    // The rise keeps what is left: a backward that forms a 40-byte gradient beside 30 bytes of
    // scratch, then frees a 100-byte saved tensor and forms an 80-byte one, rose by 70 at most.
    void riseKeepsWhatIsLeft()
    {
        ScratchMeter meter;
        int saved = 0, scratch = 0, first = 0, second = 0;
        meter.start();
        meter.allocated(&saved, 100);
        meter.mark();
        meter.allocated(&first, 40);
        meter.allocated(&scratch, 30);
        meter.freed(&scratch);
        meter.freed(&saved);
        meter.allocated(&second, 80);
        QCOMPARE(meter.riseSinceMark(), 70);
        QCOMPARE(meter.transientSinceMark(), 0);  // 70 less the 120 left: clamped
    }

    // The allocator reuses an address that was live at mark(): the block allocated there is fresh,
    // so the gradient left in it is not scratch, as when it lands elsewhere. (Read as held since
    // mark(), one of four identical attention groups measured 2 MB more than the others.)
    void reusedAddressIsFresh()
    {
        auto backward = [](bool reuse) {
            ScratchMeter meter;
            int saved = 0, scratch = 0, elsewhere = 0;
            meter.start();
            meter.allocated(&saved, 100);
            meter.mark();
            meter.freed(&saved);
            meter.allocated(&scratch, 300);
            meter.allocated(reuse ? &saved : &elsewhere, 100);  // the gradient, which stays
            meter.freed(&scratch);
            return meter.transientSinceMark();
        };
        QCOMPARE(backward(false), 200);
        QCOMPARE(backward(true), 200);
    }
};

QTEST_GUILESS_MAIN(ScratchMeterTest)
#include "tst_scratchmeter.moc"
