// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCompletionFlags;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvdFlags;
import dat.api.DatException;
import dat.api.DatIaAttr;
import dat.api.DatMemPriv;
import dat.api.DatProviderAttr;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatSrqAttr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The shared argument checks: each bad argument gets its DAT code, its argument subtype and a message naming it. */
class DatArgsTest {

    private static final DatIaAttr IA = DatIaAttr.builder().maxEvdQlen(100).maxLmrBlockSize(1 << 20)
            .maxRecvPerSrq(64).maxIovSegmentsPerDto(4).maxDtoPerEp(32).maxMessageSize(1 << 16).maxRdmaSize(1 << 16)
            .maxRdmaReadIn(4).maxRdmaReadOut(4).maxIovSegmentsPerRdmaRead(4).maxIovSegmentsPerRdmaWrite(4).build();
    private static final DatProviderAttr PROVIDER = DatProviderAttr.builder().providerName("test")
            .completionFlagsSupported(DatCompletionFlags.SUPPRESS).build();

    private static DatException fails(DatReturn type, DatReturnSubtype subtype, String mentions, Executable call) {
        DatException e = assertThrows(DatException.class, call);
        assertSame(type, e.type(), e.getMessage());
        if (subtype != null) {
            assertSame(subtype, e.subtype(), e.getMessage());
        }
        assertTrue(e.getMessage().contains(mentions), e.getMessage());
        return e;
    }

    @Test
    void evdCreateAndResize() {
        DatArgs.evdCreate(IA, 100, DatEvdFlags.DTO);
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, "evd_min_qlen 0",
                () -> DatArgs.evdCreate(IA, 0, DatEvdFlags.DTO));
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, "max_evd_qlen 100",
                () -> DatArgs.evdCreate(IA, 101, DatEvdFlags.DTO));
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG4, "no event kind",
                () -> DatArgs.evdCreate(IA, 1, 0));
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG4, "unknown bits 0x1000",
                () -> DatArgs.evdCreate(IA, 1, 0x1000 | DatEvdFlags.DTO));
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, "dat_evd_resize",
                () -> DatArgs.evdResize(IA, 101));
    }

    @Test
    void lmrCreate() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment region = arena.allocate(64);
            DatArgs.lmrCreate(IA, region, DatMemPriv.ALL);
            fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, "null",
                    () -> DatArgs.lmrCreate(IA, null, 0));
            fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, "heap segment",
                    () -> DatArgs.lmrCreate(IA, MemorySegment.ofArray(new byte[8]), 0));
            fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG4, "length 0",
                    () -> DatArgs.lmrCreate(IA, region.asSlice(0, 0), 0));
            fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG6, "unknown bits",
                    () -> DatArgs.lmrCreate(IA, region, 0x4));
            fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG6, "read-only",
                    () -> DatArgs.lmrCreate(IA, region.asReadOnly(), DatMemPriv.REMOTE_WRITE));
        }
    }

    @Test
    void srqCreateAndResize() {
        DatArgs.srqCreate(IA, new DatSrqAttr(64, 4, 0));
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, "srq_attr is null",
                () -> DatArgs.srqCreate(IA, null));
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, "max_recv_per_srq 64",
                () -> DatArgs.srqCreate(IA, new DatSrqAttr(65, 1, 0)));
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, "max_recv_iov 5",
                () -> DatArgs.srqCreate(IA, new DatSrqAttr(1, 5, 0)));
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, "dat_srq_set_lw",
                () -> DatArgs.srqCreate(IA, new DatSrqAttr(8, 1, 2)));
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, "below 1", () -> DatArgs.srqResize(IA, 0));
        fails(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ, "above max_recv_per_srq",
                () -> DatArgs.srqResize(IA, 65));
    }

    @Test
    void epAttrFollowsLimitsAndSupportedFlags() {
        DatArgs.epAttr("dat_ep_create", IA, PROVIDER, DatEpAttr.builder().build(), false);
        assertRejected("max_request_dtos 33", b -> b.maxRequestDtos(33));
        assertRejected("max_recv_iov 5", b -> b.maxRecvIov(5));
        assertRejected("recv_completion_flags 0x2", b -> b.recvCompletionFlags(DatCompletionFlags.SOLICITED_WAIT));
        assertRejected("request_completion_flags 0x4",
                b -> b.requestCompletionFlags(DatCompletionFlags.UNSIGNALLED));
        assertRejected("ep_provider_specific", b -> b.epProviderSpecific(Map.of("k", "v")));
        DatArgs.epAttr("dat_ep_create_with_srq", IA, PROVIDER,
                DatEpAttr.builder().recvCompletionFlags(DatCompletionFlags.UNSIGNALLED).maxRecvIov(99).build(), true);
        fails(DatReturn.MODEL_NOT_SUPPORTED, null, "srq_soft_hw", () -> DatArgs.epAttr("dat_ep_create", IA,
                PROVIDER, DatEpAttr.builder().srqSoftHw(3).build(), true));
    }

    private static void assertRejected(String mentions, Consumer<DatEpAttr.Builder> change) {
        DatEpAttr.Builder b = DatEpAttr.builder();
        change.accept(b);
        DatEpAttr attr = b.build();
        fails(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG6, mentions,
                () -> DatArgs.epAttr("dat_ep_create", IA, PROVIDER, attr, false));
    }

    @Test
    void everyEpStateHasItsSubtype() {
        assertSame(DatReturnSubtype.INVALID_STATE_EP_CONNECTED, DatArgs.epStateSubtype(DatEpState.CONNECTED));
        assertSame(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, DatArgs.epStateSubtype(DatEpState.UNCONNECTED));
        for (DatEpState s : DatEpState.values()) {
            assertTrue(DatArgs.epStateSubtype(s).name().startsWith("INVALID_STATE_EP_"), s.name());
        }
    }
}
