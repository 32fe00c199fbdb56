// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dat.api.DatCompletionFlags;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatQos;
import dat.provider.udapl.internal.ffm.DatStructs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The EP's DAT 2.0 mappings that need no device: states and {@code DAT_EP_ATTR}. */
class UdaplEpTest {

    @Test
    void dat20StatesMapByOrdinalAndItsPathStatesAreConnected() {
        // dat2/dat.h numbers DAT_EP_STATE_UNCONNECTED .. COMPLETION_PENDING as DAT 1.2 does, then adds two.
        assertEquals(DatEpState.UNCONNECTED, UdaplEp.state(0));
        assertEquals(DatEpState.RESERVED, UdaplEp.state(2));
        assertEquals(DatEpState.ACTIVE_CONNECTION_PENDING, UdaplEp.state(6));
        assertEquals(DatEpState.CONNECTED, UdaplEp.state(9));
        assertEquals(DatEpState.DISCONNECTED, UdaplEp.state(11));
        assertEquals(DatEpState.COMPLETION_PENDING, UdaplEp.state(12));
        assertEquals(DatEpState.CONNECTED, UdaplEp.state(13), "DAT_EP_STATE_CONNECTED_SINGLE_PATH");
        assertEquals(DatEpState.CONNECTED, UdaplEp.state(14), "DAT_EP_STATE_CONNECTED_MULTI_PATH");
        assertEquals(DatEpState.DISCONNECTED, UdaplEp.state(15));
        assertEquals(DatEpState.DISCONNECTED, UdaplEp.state(-1));
    }

    @Test
    void epAttributesSurviveTheDat20StructUnsignedSizesIncluded() {
        DatEpAttr attr = DatEpAttr.builder()
                .maxMessageSize(0xFFFF_FFFFL)
                .maxRdmaSize(0x8000_0000L)
                .qos(DatQos.LOW_LATENCY)
                .recvCompletionFlags(DatCompletionFlags.DEFAULT)
                .requestCompletionFlags(DatCompletionFlags.SUPPRESS)
                .maxRecvDtos(17)
                .maxRequestDtos(19)
                .maxRecvIov(3)
                .maxRequestIov(5)
                .maxRdmaReadIn(7)
                .maxRdmaReadOut(9)
                .maxRdmaReadIov(2)
                .maxRdmaWriteIov(4)
                .build();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(DatStructs.DAT_EP_ATTR);
            a.fill((byte) 0x5a);
            UdaplEp.write(a, attr);
            DatEpAttr back = UdaplEp.read(a);
            assertEquals(attr.maxMessageSize(), back.maxMessageSize());
            assertEquals(attr.maxRdmaSize(), back.maxRdmaSize());
            assertEquals(attr.qos(), back.qos());
            assertEquals(attr.requestCompletionFlags(), back.requestCompletionFlags());
            assertEquals(attr.maxRecvDtos(), back.maxRecvDtos());
            assertEquals(attr.maxRequestDtos(), back.maxRequestDtos());
            assertEquals(attr.maxRecvIov(), back.maxRecvIov());
            assertEquals(attr.maxRequestIov(), back.maxRequestIov());
            assertEquals(attr.maxRdmaReadIn(), back.maxRdmaReadIn());
            assertEquals(attr.maxRdmaReadOut(), back.maxRdmaReadOut());
            assertEquals(attr.maxRdmaReadIov(), back.maxRdmaReadIov());
            assertEquals(attr.maxRdmaWriteIov(), back.maxRdmaWriteIov());
            // No consumer-specific attribute reaches C: the counts and pointers are zero, not the fill pattern.
            assertEquals(0, a.get(ValueLayout.JAVA_INT,
                    offset(DatStructs.DAT_EP_ATTR,
                            "ep_transport_specific_count")));
            assertEquals(0L, a.get(ValueLayout.JAVA_LONG,
                    offset(DatStructs.DAT_EP_ATTR, "ep_provider_specific")));
        }
    }
}
