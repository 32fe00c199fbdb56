// SPDX-License-Identifier: Apache-2.0
package dat.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DatAttributesTest {

    @Test
    void fieldsCarryDatNamesInDeclarationOrder() {
        DatProviderAttr attr = DatProviderAttr.builder().providerName("p").srqSupported(true)
                .epRecvInfoSupported(0x11).build();
        Map<String, Object> fields = DatFields.of(attr);
        List<String> names = List.copyOf(fields.keySet());
        assertEquals("provider_name", names.get(0));
        assertTrue(names.contains("srq_ep_pz_difference_supported"), names.toString());
        assertTrue(names.contains("is_thread_safe"), names.toString());
        assertTrue(names.contains("optimal_buffer_alignment"), names.toString());
        assertEquals(true, fields.get("srq_supported"));
        assertEquals(0x11, fields.get("ep_recv_info_supported"));
        assertEquals(DatIovOwnership.PROVIDER_NOMOD, fields.get("iov_ownership_on_return"));
    }

    @Test
    void iaAttrNamesMatchDat() {
        Map<String, Object> fields = DatFields.of(DatIaAttr.builder().maxIovSegmentsPerDto(8).build());
        assertEquals(8, fields.get("max_iov_segments_per_dto"));
        assertTrue(fields.containsKey("ia_address_ptr"));
        assertTrue(fields.containsKey("max_rdma_read_per_ep_in_guaranteed"));
        assertEquals(33, fields.size(), "DAT_IA_ATTR has 33 fields besides the attribute counts");
    }

    @Test
    void toBuilderRoundTrips() {
        DatEpAttr attr = DatEpAttr.builder().maxRecvDtos(128).requestCompletionFlags(DatCompletionFlags.UNSIGNALLED)
                .build();
        assertEquals(attr, attr.toBuilder().build());
        assertEquals(129, attr.toBuilder().maxRecvDtos(129).build().maxRecvDtos());
        assertEquals(Dat.DAT_HW_DEFAULT, attr.srqSoftHw());
    }

    @Test
    void mapsAreCopiedAndNullsNamed() {
        Map<String, String> specific = new HashMap<>();
        specific.put("k", "v");
        DatProviderAttr attr = DatProviderAttr.builder().providerSpecificAttr(specific).build();
        specific.put("k2", "v2");
        assertEquals(Map.of("k", "v"), attr.providerSpecificAttr());
        NullPointerException e = assertThrows(NullPointerException.class,
                () -> DatProviderAttr.builder().epCreator(null).build());
        assertEquals("ep_creator", e.getMessage());
    }

    @Test
    void crParamPrivateDataIsACopy() {
        byte[] data = {1, 2, 3};
        DatCrParam param = new DatCrParam(null, 0, data, null);
        data[0] = 9;
        assertEquals(1, param.privateData()[0]);
        param.privateData()[1] = 9;
        assertEquals(2, param.privateData()[1]);
    }
}
