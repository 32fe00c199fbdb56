// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatSrqParam;
import dat.api.Iov;

/**
 * The SRQ type of a provider without shared receive queues: {@code AbstractIa<MyIa, MyPz, MyEvd, NoSrq<MyIa, MyPz>,
 * MyEp>}. It has no instance ({@code srq_supported} false: {@code dat_srq_create} answers
 * {@code DAT_MODEL_NOT_SUPPORTED} before any hook runs), so {@code implCreateEp}'s {@code srq} is always {@code null},
 * and the provider names no SRQ base it does not extend.
 *
 * @param <I> the provider's IA class
 * @param <P> its PZ class
 */
public final class NoSrq<I extends AbstractIa<I, ?, ?, ?, ?>, P extends AbstractPz<I>> extends AbstractSrq<I, P> {

    @SuppressWarnings("unused") // never called: the type exists to be named, not instantiated
    private NoSrq(P pz) {
        super(pz, 1, 1);
        throw new AssertionError("NoSrq has no instance");
    }

    @Override
    protected int outstandingBuffers() {
        throw new AssertionError();
    }

    @Override
    protected boolean implSetLowWatermark(int lowWatermark) {
        throw new AssertionError();
    }

    @Override
    protected void lowWatermarkEvent() {
        throw new AssertionError();
    }

    @Override
    protected void implResize(int srqMaxRecvDto) {
        throw new AssertionError();
    }

    @Override
    public int postRecv(int numSegments, Iov localIov, long userCookie) {
        throw new AssertionError();
    }

    @Override
    public DatSrqParam query() {
        throw new AssertionError();
    }
}
