// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatIa;

/**
 * The smallest EP a two-node test needs to play a protocol by hand: one 64-byte message each way, one EVD for its
 * connection events and one for its DTOs.
 *
 * @param ep the endpoint
 * @param connect its connection EVD
 * @param dto its request and receive EVD
 */
record SmallEp(DatEp ep, DatEvd connect, DatEvd dto) {

    /** {@return a new EP on {@code ia}, in a fresh PZ} */
    static SmallEp open(DatIa ia) {
        DatEvd connect = ia.createEvd(4, null, DatEvdFlags.CONNECTION);
        DatEvd dto = ia.createEvd(4, null, DatEvdFlags.DTO);
        DatEp ep = ia.createEp(ia.createPz(), dto, dto, connect, DatEpAttr.builder().maxMessageSize(64)
                .maxRdmaSize(0).maxRecvDtos(1).maxRequestDtos(1).maxRecvIov(1).maxRequestIov(1).build());
        return new SmallEp(ep, connect, dto);
    }
}
