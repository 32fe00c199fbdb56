// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatCno;
import dat.api.DatEpAttr;
import dat.api.DatEvdFlags;
import dat.api.DatException;
import dat.api.DatIaAttr;
import dat.api.DatProviderAttr;
import dat.api.DatPspFlags;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.spi.AbstractCno;
import dat.spi.AbstractIa;
import dat.spi.DatArgs;
import dat.spi.NoSrq;
import java.lang.foreign.MemorySegment;

/**
 * An example IA ({@code dat_ia_open}): creates and owns every other object. The DAT calls are {@link AbstractIa}'s:
 * it checks the IA is open, the arguments and the handles (each an open object of this IA, an EVD with the flag its
 * events need), the limits of {@link ExampleProvider#iaAttr}, and runs the free protocol; this class only builds the
 * objects in its {@code impl*} hooks, which the shell calls under the lifecycle lock, here the provider-wide
 * {@link Fabric#LOCK}.
 *
 * <p>The attributes deny SRQs and memory windows, so this class writes no hook for them: the shell answers
 * {@code DAT_MODEL_NOT_SUPPORTED}. The SRQ type parameter is {@link NoSrq}, a type with no instance, since there is
 * none here.
 */
final class ExampleIa extends AbstractIa<ExampleIa, ExamplePz, ExampleEvd, NoSrq<ExampleIa, ExamplePz>, ExampleEp> {

    ExampleIa(String name, DatProviderAttr providerAttr, DatIaAttr iaAttr, int asyncEvdMinQlen) {
        super(name, Fabric.ADDRESS, providerAttr, iaAttr, Fabric.LOCK);
        // The async EVD belongs to the IA itself: not in the handle set, so a graceful close does not count it.
        initAsyncEvd(new ExampleEvd(this, asyncEvdMinQlen, DatEvdFlags.ASYNC, null));
    }

    /** dat_ia_close: the objects are gone (the shell destroyed them, users first); the async EVD goes last. */
    @Override
    protected void implCloseLocked() {
        asyncEvd().destroy();
    }

    @Override
    protected ExamplePz implCreatePz() {
        return new ExamplePz(this);
    }

    /** The async EVD is the IA's own. */
    @Override
    protected void checkEvdCreate(int evdMinQlen, DatCno cno, int evdFlags) {
        super.checkEvdCreate(evdMinQlen, cno, evdFlags);
        if ((evdFlags & DatEvdFlags.ASYNC) != 0) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG4,
                    "dat_evd_create: DAT_EVD_ASYNC_FLAG is the IA's own async EVD's; use dat_ia_query");
        }
    }

    @Override
    protected ExampleEvd implCreateEvd(int evdMinQlen, AbstractCno<ExampleIa> cno, int evdFlags) {
        return new ExampleEvd(this, evdMinQlen, evdFlags, cno);
    }

    @Override
    protected ExampleCno implCreateCno(DatCno.Agent agent) {
        return new ExampleCno(this, agent);
    }

    /** Alive and shared (DatMemory, checked by the shell): data moves on whichever thread posts. */
    @Override
    protected ExampleLmr implCreateLmr(ExamplePz pz, MemorySegment region, int privileges) {
        return new ExampleLmr(pz, region, privileges);
    }

    /** Contexts are global to the fabric: only this IA's LMRs count. */
    @Override
    protected ExampleLmr lmrOf(int lmrContext) {
        Fabric.LOCK.lock();
        try {
            ExampleLmr lmr = Fabric.memory(lmrContext);
            return lmr != null && lmr.owner() == this ? lmr : null;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /** {@code srq_supported} is false: no EP can be created on an SRQ. */
    @Override
    protected void checkEpAttr(String call, DatEpAttr attr, boolean withSrq) {
        if (withSrq) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": srq_supported is false");
        }
        super.checkEpAttr(call, attr, withSrq);
    }

    @Override
    protected ExampleEp implCreateEp(String call, ExamplePz pz, ExampleEvd recvEvd, ExampleEvd requestEvd,
                                     ExampleEvd connectEvd, NoSrq<ExampleIa, ExamplePz> srq, DatEpAttr attr) {
        return new ExampleEp(this, pz, recvEvd, requestEvd, connectEvd, attr);
    }

    @Override
    protected ExamplePsp implCreatePsp(String call, boolean any, long connQual, ExampleEvd crEvd,
                                       DatPspFlags flags) {
        long qual = any ? Fabric.freeQualifier() : connQual;
        ExamplePsp psp = new ExamplePsp(this, qual, crEvd, flags);
        if (!Fabric.listen(qual, psp)) {
            throw new DatException(DatReturn.CONN_QUAL_IN_USE, call + ": conn_qual " + qual
                    + " already has a PSP or RSP");
        }
        return psp;
    }

    @Override
    protected ExampleRsp implCreateRsp(String call, long connQual, ExampleEp ep, ExampleEvd crEvd) {
        ExampleRsp rsp = new ExampleRsp(this, connQual, ep, crEvd);
        ep.connection.reserve(call);
        if (!Fabric.listen(connQual, rsp)) {
            ep.connection.unreserve();
            throw new DatException(DatReturn.CONN_QUAL_IN_USE, call + ": conn_qual " + connQual
                    + " already has a PSP or RSP");
        }
        return rsp;
    }

    @Override
    public String toString() {
        return "ExampleIa[" + name() + (isClosed() ? ", closed]" : "]");
    }
}
