// SPDX-License-Identifier: GPL-2.0-or-later
/* gen_seeds_vu.c - seeds of the vhost-user fuzz targets, from real traffic
 *
 * Theory of operation
 *
 * Part of gen_seeds (gen_seeds.c calls gen_vu()). The seeds replay what a
 * real front-end and a real guest did: QEMU 7.2 (Debian 12) booting and
 * powering off a Debian 6.1 guest kernel with passt --vhost-user, the
 * guest getting a DHCP lease, pinging the gateway and sending 300 kB over
 * TCP. A proxy between QEMU and passt recorded every message QEMU sent,
 * with the number of descriptors it passed, and, at each transmit kick,
 * the chains the guest's virtio-net driver made available: descriptors
 * (index, length, flags, next) and the bytes of their buffers. That
 * recording is gen_qemu72[] and the gen_tx_*[] tables below; the only
 * change is the size of the second memory region, cut to the harness's
 * memory (FUZZ_VU_MEM_SIZE: the recorded rings lie within it).
 *
 * fuzz_vu_msg gets the recorded messages (all of them, and the boot
 * alone), the set-up vu_bridge makes (REPLY_ACK on every request), and
 * two sequences in an order QEMU does not use. fuzz_vu_virtq gets one
 * seed per recorded transmit chain, in the layout the driver used, with
 * receive buffers posted as the driver posts them (1536 bytes, mergeable)
 * and a frame to the guest, with the recorded features; and the same
 * ARP request behind a legacy 10-byte header, without mergeable buffers;
 * and TCP data written in place in those receive buffers (tcp_lend).
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gen_seeds.h"

/* fuzz_vu_virtq: ring offsets (in 8-byte units) as QEMU laid them out
 * for 256-entry queues (available ring 4 KiB after the descriptors, used
 * ring 0x240 after that), receive queue first; the scratch area
 */
static const uint16_t gen_vq_rings[6] = {
	0x000, 0x200, 0x248, 0x400, 0x600, 0x648,
};
#define GEN_VQ_SCRATCH		(1U << 20)
#define GEN_VQ_RX_BUFS		16
#define GEN_VQ_RX_BUF		1536

/**
 * struct gen_vu_rec - a recorded message
 * @req:	request
 * @flags:	header flags
 * @nfds:	descriptors QEMU passed with it
 * @hex:	payload, in hexadecimal
 */
struct gen_vu_rec {
	uint8_t req;
	uint8_t flags;
	uint8_t nfds;
	const char *hex;
};

/**
 * struct gen_vu_desc - a recorded transmit descriptor
 * @i:		its index
 * @len:	length
 * @flags:	flags
 * @next:	next index
 * @hex:	the bytes of its buffer, in hexadecimal
 */
struct gen_vu_desc {
	uint16_t i;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
	const char *hex;
};

/* QEMU 7.2's messages to passt at a guest's boot and power-off, as
 * recorded (see the top of this file); the second region's size is the
 * harness's 64 MiB less its offset
 */
static const struct gen_vu_rec gen_qemu72[] = {
	{ 1, 0x1, 0,
		"" },
	{ 15, 0x1, 0,
		"" },
	{ 16, 0x1, 0,
		"0800000000000000" },
	{ 3, 0x1, 0,
		"" },
	{ 1, 0x1, 0,
		"" },
	{ 13, 0x1, 1,
		"0000000000000000" },
	{ 14, 0x1, 1,
		"0000000000000000" },
	{ 13, 0x1, 1,
		"0100000000000000" },
	{ 14, 0x1, 1,
		"0100000000000000" },
	{ 18, 0x1, 0,
		"0000000001000000" },
	{ 18, 0x1, 0,
		"0100000001000000" },
	{ 18, 0x1, 0,
		"0000000001000000" },
	{ 18, 0x1, 0,
		"0100000001000000" },
	{ 18, 0x1, 0,
		"0000000001000000" },
	{ 18, 0x1, 0,
		"0100000001000000" },
	{ 18, 0x1, 0,
		"0000000001000000" },
	{ 18, 0x1, 0,
		"0100000001000000" },
	{ 18, 0x1, 0,
		"0000000001000000" },
	{ 18, 0x1, 0,
		"0100000001000000" },
	{ 2, 0x1, 0,
		"8399006001000000" },
	{ 5, 0x9, 2,
		"0200000000000000000000000000000000000a000000000000f0ff835f7f0000"
		"000000000000000000000c00000000000000f4030000000000f00b845f7f0000"
		"00000c0000000000" },
	{ 8, 0x1, 0,
		"0000000000010000" },
	{ 10, 0x1, 0,
		"0000000000000000" },
	{ 9, 0x1, 0,
		"000000000000000000b0a1865f7f000040c2a1865f7f000000c0a1865f7f0000"
		"40d2a10200000000" },
	{ 12, 0x1, 1,
		"0000000000000000" },
	{ 13, 0x1, 1,
		"0000000000000000" },
	{ 8, 0x1, 0,
		"0100000000010000" },
	{ 10, 0x1, 0,
		"0100000000000000" },
	{ 9, 0x1, 0,
		"010000000000000000d0a1865f7f000040e2a1865f7f000000e0a1865f7f0000"
		"40f2a10200000000" },
	{ 12, 0x1, 1,
		"0100000000000000" },
	{ 13, 0x1, 1,
		"0100000000000000" },
	{ 11, 0x1, 0,
		"0000000000000000" },
	{ 11, 0x1, 0,
		"0100000000000000" },
	{ 18, 0x1, 0,
		"0000000001000000" },
	{ 18, 0x1, 0,
		"0100000001000000" },
};

/* Transmit chains of the same guest (Linux 6.1 virtio_net): each
 * descriptor as the driver wrote it, with its bytes
 */
static const struct gen_vu_desc gen_tx_dhcp_discover[] = {
	{ 0, 354, 0, 1,
		"000000000000000000000000ffffffffffff5254001234560800450001480000"
		"0000401179a600000000ffffffff0044004301348082010106007df0f7200000"
		"0000000000000000000000000000000000005254001234560000000000000000"
		"0000000000000000000000000000000000000000000000000000000000000000"
		"0000000000000000000000000000000000000000000000000000000000000000"
		"0000000000000000000000000000000000000000000000000000000000000000"
		"0000000000000000000000000000000000000000000000000000000000000000"
		"0000000000000000000000000000000000000000000000000000000000000000"
		"0000000000000000000000000000000000000000000000000000000000000000"
		"0000638253633501013902024037070103060c0f1c2a3c0c756468637020312e"
		"33352e303d0701525400123456ff000000000000000000000000000000000000"
		"0000" },
};
static const struct gen_vu_desc gen_tx_arp_request[] = {
	{ 0, 54, 0, 1,
		"000000000000000000000000ffffffffffff5254001234560806000108000604"
		"0001525400123456c0000202000000000000c0000201" },
};
static const struct gen_vu_desc gen_tx_icmp_echo[] = {
	{ 0, 110, 0, 1,
		"0000000000000000000000009a559a559a55525400123456080045000054633b"
		"40004001536ac0000202c00002010800665c006c0000d636bb00000000000000"
		"0000000000000000000000000000000000000000000000000000000000000000"
		"0000000000000000000000000000" },
};
static const struct gen_vu_desc gen_tx_ndp_ns[] = {
	{ 0, 98, 0, 1,
		"0000000000000000000000003333ff12345652540012345686dd600000000020"
		"3aff00000000000000000000000000000000ff0200000000000000000001ff12"
		"345687007a7300000000fe80000000000000505400fffe1234560e01daec7459"
		"ec3f" },
};
static const struct gen_vu_desc gen_tx_ndp_rs[] = {
	{ 1, 82, 0, 2,
		"00000000000000000000000033330000000252540012345686dd600000000010"
		"3afffe80000000000000505400fffe123456ff02000000000000000000000000"
		"0002850071b5000000000101525400123456" },
};
static const struct gen_vu_desc gen_tx_tcp_syn[] = {
	{ 1, 86, 0, 0,
		"0100000000002200100000009a559a559a5552540012345608004500003c54fe"
		"4000400661bac0000202c0000201c5de1b593208cc6b00000000a002ffc88432"
		"00000204ffc80402080a0d4307660000000001030306" },
};
static const struct gen_vu_desc gen_tx_tcp_data_2desc[] = {
	{ 1, 66, 1, 0,
		"0100000000002200100000009a559a559a555254001234560800450004285500"
		"400040065dccc0000202c0000201c5de1b593208cc6cdd94231a50180400881e"
		"0000" },
	{ 0, 1024, 0, 2,
		"37f28060e0eb5987ece660f19afe897a712046ad52e6d341b89200fc49cc9f3a"
		"21fc146d30224f1557458d0200e4a197fd099d7aae82e06852e249c06b8d49fb"
		"67185527a0c4731f272ce8c6de2129289a9ee02a3831fdde3226e9e8dc42826f"
		"3ffbc41286bbde2fb485772301a2f24c2ab511cd9176f61c8135754ddf637333"
		"a599c30a8bb1eb731eb5eba4997ecc070b45cfa02e223b2895322efc23c8f82c"
		"2415372fcb473fad80a497761d7973aa49820b7ed516728f93d2247294519e2a"
		"5730ae218e4ba1d4c28397a6bf12ea3a018a89d2f67166f7bf855a887c5204ad"
		"6fd22469180ce0242f3436840845775ec259574eb0bb6bce3b0ff2611f65431d"
		"b9b2cd6e9bed1b1779d080a4aea3f5049af9dd0c40a2c51452c7f29c23fe24a8"
		"372321c3553911116f85abb8892a56ebc06d19ddb42f71c9dcc179ffc1d1b55d"
		"7fee648f614115a7e4b0dbc5e2d6f63155cbeacadbede87943b2dd863b6b988e"
		"d99e339962b6d924615a9eb1a3786563b7a97ed5cd584dd41c0d351b5c9a211e"
		"03d945f9245168dd3820215606d6f48c794a1606967a3b1ba934a3e03bfd4e4a"
		"5c3374861f05ee40d741415496c8f06e9102b0c2a52c7ebcb4b0618df2c2548b"
		"b9af80cf5041ee5b11a9bf863e7c73d320f89b51f6189cf77ffcc4c8abc35c29"
		"6bebf47373e990cfdc931c02ee8e302ff0d0914699a3c25d8a0590dfa4df1716"
		"e0b9f2bdcc32c85e0dd1af0e260e6ce5b28fa37950ad02968b78fbd3e1ea65b9"
		"721fe8b189d49ecd90cf90e8b38f8a34d31ba8e3f59bb3d7e5c142ad44905ad0"
		"8045f4eca825c8f66ed889fd29ab878912dadf6fb8ddddb5c97770326eb1021b"
		"34233aa14c2115669fee435c62eaddf43b82502d659eae3a863f0f7154ee654e"
		"e6fca8ad8b3fe0152f1deb476dc9c5046d31859b8377888e36d10e54580b4501"
		"4655123be845a0c6fdc669e26a252ab5260ce4e7bb91fe0799ac82c67e5f5371"
		"48a739d597f6d37abb935991ea615801b20e00d04d463ec5751828bc987a5e8f"
		"efdf0b76e1d53a5af8630dcfa0f88ad7810c525b7cf78a397c3db6049791199c"
		"18f98ca686b1c2b2bb53749e1bf4a243a5174a4b7920b2ed58f428363038112b"
		"8ede2f9489fe077ccac24d84ce3a9db4fabbeaa18facbf7a56691d16021310ce"
		"ac4bf8285a12ac502ea7359ca43836180bc971a13dfa3f6d5bc535f4ba325757"
		"f43ce9da132c0e8a92a3c8a316cfdbc955fadd846978c6d21af3b08050370f87"
		"b72084669b834991236c4ebe5c3dc70b75ed648d8a0936bfa19839bc0e6b9a21"
		"4a81d8293cd4f5f015356edf5100f4f42fd4644b591ad5e34f035f2d91de3cb6"
		"85fc525c8a19ec7b21b7f43d12802c8a0603b7e3df7d546f41311c613805bde6"
		"761eb03c67a70910ff3fcb6bb17c8b7d4af9a3780b3f7da117a0804c58053b1d" },
};
static const struct gen_vu_desc gen_tx_tcp_data_4k_2desc[] = {
	{ 2, 66, 1, 3,
		"0100000000002200100000009a559a559a55525400123456080045001011550a"
		"4000400651d9c0000202c0000201c5de1b59320d5063dd94231a501904009407"
		"0000" },
	{ 3, 4073, 0, 4,
		"6683cb8b9fcc179e168d82aa50943457ea4829259d056fcaf7eeed3fe67db657"
		"abae46eefda01712e00677eda0cb8068e316344db9a8f08511b398128574c2ca"
		"8e6904be20f76c3706b93cd9a829e81037e55135d7730521941b8fceff209b7c"
		"9cbf5b440b28aa6d8c4c1d244be33e136d2660ec1177ecb19053ec373dd6fa53"
		"8a9469624e6e3ba17df82eae1f992cf3d555b1f04a8bb3e7be59b952c78a7e02"
		"7d09675c79b10f8c4222ac03d48cd0c8f0643f2d9446388040accca054748b4d"
		"308c5716c96547965a0ae4381cada49613885ec2595e41f70af8626f37700349"
		"28534ce5600af308dbc2a3b177028250df6c2238de6dab671100c8200deecd7a"
		"a490cb15342f173d98b263ffab77a8ad5d6515512e3fdf454a2d27794a084afa"
		"ca583357c76a05c2e722c25b39de85c4a09c9d9880b66b142736e90542d0dc0c"
		"ba4f8f0c8499e1b49f6fb8b17c935935a6f31a1093b4174a16c15158de77bc00"
		"66a8fbbdd3363e1440719f6c1dd61e03187b5feda9439a419f44a8415b524744"
		"312d150dbf827a2b63607749d2f373687321441008708d6b7a21d2f9df3036c1"
		"5110e93bec25c8798a3beedfa2b195669e6536de49643b8aa16d6d3a1df105fd"
		"b5bc26b02c15092d0ff3883b31ba8af3531a25ee42ce130d6318531d56fddcba"
		"8ce2082763f8bc398977a07eb8b4d6b993d2ed062625fd24f3619d11a9d59ed8"
		"ea363df7bdc8749d81c2ae2c8eff717f160380f808f2171a6835b9dea16930f9"
		"c8d334752d85b6ab264dee7e5c2fe03bb0fc11bdac2fe8c1e4c79a80a3cf04e0"
		"80cbb382a778bc6f3cbd1119b70797425eb1938ef53eef80806cc91a73d8bd47"
		"61ed6f5893e66df40347a565f4079e084acb69f0b8d7f8f773984c98375ea3d7"
		"eb2d91aa91b2a1e9b4dfdc18dbe4df097c5303bdbdbb84ed124889bb73d36856"
		"7398c6a774794fef2eebd99bf0f574dac737cea9b24560d5f6f83d1316b607cb"
		"a4031e37c9a5c692fc989e64da98e8101a8a4339fbf26e4b7a912513b0a77d92"
		"804cf74d7e88fd068ecca5dfa0b4f2458c0727586490abadbc8c95423c1b1951"
		"c0e6128f1fb1b9d2f809ad49adce4a4d8aef2c650081a89d602b8d1f43d08179"
		"947d4694af170feb629ecd2ed03314524fe16ad7efe495a3d348d16a6b17f953"
		"4946c2f037f8e2c26b65b19443749a24527758a3d5a6c7368145fe2c2ea86f69"
		"a63ffc9b942d97c9a5797f582b4a88aed9e8bb77ffecf10b050405e36016b6cf"
		"ffa541046652eaeda5fa01c9110c30613e2aac68adccceaff5c300051a46ea6f"
		"1202a60dbbf64092fab23ad10a94c90df459d926e308ccdf0f0f789c753b0792"
		"dd0c8b62bbc83fd944cdac05ae18fccbe0474c9e4060c5a552ba52dbe6c478f2"
		"85b60647467b082ce8f7ac9609410c9513c1d0c104c17c0739db341c4c609062"
		"0ff2604ce05ab9ad016325c28fd9c15aafa457728d9a8c349ff81672e495e651"
		"33830586060addbe9071b700a279a49734d55734b98d0ab8e27927ac8277afa7"
		"f91966168213c0a24700d5da544c5493203131fd4d35aa2d43f253e041b6cfd8"
		"ad9930aa97289b5d13fa622152e0ad512278833e8970d429c6a965bef380b663"
		"d468606e4e6e9dc9a1965cc807e6b9130104e658d9a6789503c988eca4a4597f"
		"b92aca8308f7eb3aa1d0ab71beec959917e22e0f321bc078c543e2129100e6ff"
		"62d2859d29d08ba8c0560f00b477d0e4306e5248620f63abb6dde604b28ddf04"
		"10afa82b5d882d53b8427b5e7f7998cb340c12a5f54af0f270b086e52f348ab6"
		"23e48cef76ca2e48a67c52277269b4d76fd07dd991ee925beee31e4b19fd691e"
		"69ca73c5d64e498bc764fbfd949448d4b17f48910a3258267d0958645a7c0e6c"
		"196985a29c0c498015c5c70716d326b96089b68094ba2ae6c4a97862ddc7308a"
		"0e329c3e40245c46be4f864761d518933ddc084c4d9c4a80f34524b4cb1a0441"
		"6f10d13c106e93a391d91e46cab52b143fb70a4bc508ef05c2a812ed059a8707"
		"970279668250f3a8dd72fd43e2aed75e35ce4e9d6ca23dcd65322353f9038154"
		"b55c3d3fa02e55841c7939d905d9956d74ce5defabcd5ecb545e798541696a87"
		"89fe5e40aef8386cfd672a0a689eeec57804b5e687173a46ce4123f31159bd0b"
		"2cd40971ba6d70ca7c982c6a6561dc4975aaa94d2e00b0f41b3a65657338473f"
		"3339b75a3a33cbd69d9b48b246cd8dd2c8e2243783bb0c18684214434ec65c53"
		"fad42f4a889aea7eb79dae295e82e5feb893d13be4dfc94eee5414cc6a591c95"
		"2b5f55b3bf1d08da8d15e1525973fae837dc0f1a2c9788893d7407bbedf693f7"
		"ae88b1800674d2384858491e5b59ef433c258dc3b85feb1a25fb7775e3b060bc"
		"fd080ad5a09ecc4e022fbebdead9857a69679abbbe1ac821fd54340199f24388"
		"5598998480039d5c38d1cc2098cc1387c288cf6af327e266dacb21419192db63"
		"9ff1fb25d012141a6fd8cbf96c01c698453e2fc7046c0056d8cd16e5432474ff"
		"55335d162def36e38ee3130bf4d28006ca82556303e7842b6ebd3db07e6741c7"
		"6ef529d7b0fec149199f54b5ba8ddb8ff3e5baec4f85ea649ff7627d6516a0c4"
		"cabe3f3ccea883a873c5e9a41cc1bd10daa7b12c5d57d6b38ec37c00f1e620a5"
		"e4d9832fe96c1ae08fa6ec914e283bd9dd5450e5ccfea3b17ca57d50776bad61"
		"6a14438b37192664acb1cc5cbd537a1e1e1c53111c45de66439152fc08101691"
		"72a4e21dda149780bf7d9850ee8cd25449a3dfe216e45cb6cb19725c8693bf8e"
		"997b2a4842a82221b4581308c5da5983fbcae0d9d787b43639eb4b92435a1d6d"
		"195ac9bd6c1dd6afe2d2097e7cf223aebfcb760f03c7f7e9388ecea36507dd4f"
		"b92e33d56fc32dbd5dcac3e3518096497a7f6eb1059893bfe69bbb7c3c2c2ca2"
		"8fdb380e0e957d53d56ce9868980ad88025336af01aa3edcb494bb1462ef98d1"
		"7ada02d31611ccf00a98c46d74d9a8dabda7524b9054c6e34ed31ca3f0c97fa6"
		"5c7e43db98fe57407c165bfe4a9c4a45bbb801f5ff178515cec97997e86f5061"
		"a2c8154978895f5bec0082cd3589a6b10ef74036d7eef77ec119c59fa234d925"
		"e15ddd1ff1b0ed20a787063dc33c9003a59cde3782236fd0e80b3b1b15f7f985"
		"2e3867e1a5fc917d70c4e794c2174fb66725f23a31d6529390477a23cad58542"
		"654251518655b1d88f0c1f838abd64357920b327ec6982f08d6d2d96c4620c0b"
		"ccc3e7dedabb6d029481fc09520c8c434917df523e59fbb303b82372ec9b7d61"
		"0b58214c6422c71ea884102b6d7f758ad1049a9c32eeca5a36d151403cd84a9a"
		"d9558d8942de7a0f8bf9fd653749a8a1c51eaaee56fe2582c4f881c4084d5ca9"
		"d28757c450f2f13ff863d03c39ea27a2e756892c98f302184e2e234beb5555e8"
		"1b439c3f473e017d64afdb778b5303a343b40546ab55b73115671156809028ed"
		"b8a267435bde49f6e7f9f460bfc21c40d01bb8b38f615c927dd504f6cb39e07a"
		"8eaecf3e3106fe663c5d16ffa2698690b3945040b1843c8388d8b205d0ab5b8f"
		"c70d29f99aed4ab67928d2f0cd8ab566656502f6b6b74e6051327d6704a12227"
		"e3903d1345ce522d60fc75a17f84ff2f2cc1ee419ec4436d4ec8c3c7da43b320"
		"e997581407ec3c4f17161a7d6176dbb6eaa6a6b3bcf706d8071555273d08b138"
		"9958f7bdf7dab1014f12df17d81401887634129c227cc2780f30e50e39b947be"
		"4ef9d23297aa6f080d767a42c1bf2d6b1b785c169a5f766bd86433ca81f77b33"
		"4700f89a8efa6113be29318b88f252cb6a1e9f4c9a3d9444c7a7aeba3673180c"
		"62c3913e2b92d6b496e5ca34271b1f5ff62a66ff247af141c325c5e884f2e277"
		"50de5c29ce27f85c1a9d45006ac7d12c012946e21bd1355736a3ceb17a941dff"
		"b3a76fb0a5ba6194bc0685b90eb50ec039cc104982c9cbf963e771086686bebe"
		"bc60814d54e39598ee3eb4d3974a4d25f78a0381b58878c9653c15d81190f682"
		"55f84a6a87a5bdf14840912e7f09dbe01554488712770cf12518614f81084557"
		"0980059384faae6815fac2a9bf543e58cf6bc6c162d8880f192b386a05d56475"
		"a53c908a6890252e177ffb30fd70ea798df67fae6620d618477831a159271147"
		"b6e0e457a608837df6ee206997e7e1634ebe3fe0f1ca84b3c8d68c303f049eb0"
		"c190114d99ba875ab26a58b3e642730dd0c5b0256c2f91d0a9f95af193af8087"
		"d55c891b51b92009a0fb9b0177ad0a85734f1e855234fbfcd84394bf8556ae87"
		"4205ed3d5a49e9a30c7a6c103c42d854a1bad613ee91dfa46ce632e3c72f9961"
		"f98d91247a8a374d5964a45d22c743710ab11e109e10582ccc2090de0e6a9e8b"
		"ab759dff92ba285f771b375739d2276b5750f4080577cb92654f9f776102db15"
		"7f8bfe4510c0317eb442381d105f5a3864fc2eb998245f57075f7f51bf29ef82"
		"325cdcc57dfb4ce2ec2182d7bcc39d700eca2810b0d7a9a3a0c7097d611777a4"
		"91467ccfdf53824b821d0623000531640b815029d27534022f1d79b81402acc3"
		"53d8f9a2db81932ee51277ed87445f3fc8c1eefd002b8d52cb306eedf50d44d0"
		"4705a98966800b6536bba62c8dcf57f4d2dbab6ae6684636788db9f51d583921"
		"eb787c9f73b3797dbe1c552c9c6ea0c63f2d913da6e2b24df322518f546e8172"
		"62f738726fe2fac4fa97988d253ce904eebeb27db1cd27a422fadc746c086ae7"
		"c61d095360198f753931362541d38f28fba0831d8eedb4a279574c7b3c115f87"
		"37eee14c7537eb370a5d46f8d9f4ee1f70a447318a8717075feda7f9c9e934d1"
		"5476b001bf3bb7f679f15a6e595dd70944499b836f742538bff03f12522194c2"
		"e43a17df5b41eab68174941252ae8213a8fcd697da6064256cd69dbff05bf3b1"
		"54dc12e44c32e30135988892afc19c038ab08441a45267b9d97f914af1d7ce38"
		"98eb2f96bb160f8ce5855f213a7680c64fabc650bec9765dab6d81c0d791d3ba"
		"505ac0f8af6c3d6df22adf067bc195aa9833e803f6e87ec7b8c592f08893714b"
		"4684dbd4541c5461fc2f9e9b5bbb7c3c9c4c4f8ef67916044645ecd675763a09"
		"b7b1387d760c74eee9d5341a3daee42f5b601339411f6d17665c1a566ca456ca"
		"4c05db46524c7dcede3641ad494c9a2f993e0a50f42659a7005a9898d34e75ef"
		"9da8fe7055876e571534105bfb10c03377648a6655c1cfb3e4441b2d24053d28"
		"4e8c9eaa1e775e59886d61aa7031fb6881e28bdd8647bfcefa79d270b8b423d4"
		"48193821ac437a49775ffbe7d86e8cd48024bb51cee686fb911789a5a440e3ef"
		"b482012afd4eb61073d796034247bbcea756e45ed944cbe809cf1ec82c8514b0"
		"9922faeb64cbd10332e8f89a9f2b277c315c9811e20bd4b2425a5786e604f396"
		"ac6cabddf0600359c271c137729620e02788f29e5f20b89162b05c24cc83da09"
		"a6823a1df53aeda432e2c09265004e7b294b2931a5f5eaa2e89983498aa60151"
		"1d6284a9c2e99609a2c81db413c5a17a0de6299d0b72b2a2ad68cb8ba84d0f87"
		"dca2154bdc7527c84c0615294c4884d1fb627f0c987409566a9b1e95fa63593f"
		"76fe27c4f11c31209e997f5f56bf73d0dfb9b6ef254a32ff017e56db6245bfee"
		"c3bb8df9da191bfe2dc9ab2346c51fdff40ff8bb2e7c417c37fd32bfc6a8db25"
		"5b9d54d78b18bcf2762cc5b4405bef67803504d9435d3c117681b0df682d8e96"
		"2ff451dc8b29864059" },
};

/* A buffer for one seed */
#define GEN_VU_SEED_MAX		(64 * 1024)

/**
 * struct gen_buf - a seed being built
 * @b:		bytes
 * @n:		used
 */
struct gen_buf {
	uint8_t b[GEN_VU_SEED_MAX];
	size_t n;
};

/**
 * gen_put() - append bytes
 * @s:		seed
 * @p:		bytes
 * @len:	their number
 */
static void gen_put(struct gen_buf *s, const void *p, size_t len)
{
	if (!len)
		return;
	if (len > sizeof(s->b) - s->n)
		len = sizeof(s->b) - s->n;
	memcpy(s->b + s->n, p, len);
	s->n += len;
}

/**
 * gen_u8() - append a byte
 * @s:		seed
 * @v:		value
 */
static void gen_u8(struct gen_buf *s, unsigned int v)
{
	uint8_t b = (uint8_t)v;

	gen_put(s, &b, 1);
}

/**
 * gen_le() - append a little-endian value
 * @s:		seed
 * @v:		value
 * @len:	bytes (2, 3, 4, 8)
 */
static void gen_le(struct gen_buf *s, uint64_t v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		gen_u8(s, (unsigned int)(v >> (8 * i)) & 0xff);
}

/**
 * gen_hex() - decode hexadecimal bytes
 * @hex:	string of hexadecimal digit pairs
 * @out:	bytes, filled
 * @max:	room in @out
 *
 * Return: bytes decoded
 */
static size_t gen_hex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned int v;

	while (n < max && hex[0] && hex[1] && sscanf(hex, "%2x", &v) == 1) {
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return n;
}

/**
 * gen_msg() - append a fuzz_vu_msg record
 * @s:		seed
 * @ctl:	record byte 0 (descriptors, their kind)
 * @req:	request
 * @flags:	header flags
 * @p:		payload
 * @len:	its length (also the header's size field)
 */
static void gen_msg(struct gen_buf *s, unsigned int ctl, unsigned int req,
		    unsigned int flags, const void *p, size_t len)
{
	gen_u8(s, ctl);
	gen_u8(s, req);
	gen_u8(s, flags);
	gen_le(s, len, 2);
	gen_le(s, len, 2);
	gen_put(s, p, len);
}

/**
 * gen_qemu72_msgs() - the recorded messages, from the first to @n
 * @s:		seed
 * @n:		how many
 */
static void gen_qemu72_msgs(struct gen_buf *s, size_t n)
{
	uint8_t p[512];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct gen_vu_rec *r = &gen_qemu72[i];
		size_t len = gen_hex(r->hex, p, sizeof(p));
		/* Memory table: memfds; anything else: eventfds */
		unsigned int kind = r->req == 5 ? 3 << 4 : 0;

		gen_msg(s, kind | r->nfds, r->req, r->flags, p, len);
	}
}

/**
 * gen_u64_msg() - append a record with a u64 payload
 * @s:		seed
 * @ctl:	record byte 0
 * @req:	request
 * @flags:	header flags
 * @v:		value
 */
static void gen_u64_msg(struct gen_buf *s, unsigned int ctl,
			unsigned int req, unsigned int flags, uint64_t v)
{
	uint8_t p[8];
	size_t i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	gen_msg(s, ctl, req, flags, p, sizeof(p));
}

/**
 * gen_state_msg() - append a record with a ring index and a number
 * @s:		seed
 * @req:	request
 * @flags:	header flags
 * @index:	queue
 * @num:	number
 */
static void gen_state_msg(struct gen_buf *s, unsigned int req,
			  unsigned int flags, uint32_t index, uint32_t num)
{
	uint64_t v = index | (uint64_t)num << 32;

	gen_u64_msg(s, 0, req, flags, v);
}

/**
 * gen_vu_bridge_setup() - the set-up tests/tools/vu_bridge makes: every
 *			   request after the protocol features asks for a
 *			   REPLY_ACK status
 * @s:		seed
 */
static void gen_vu_bridge_setup(struct gen_buf *s)
{
	static const uint64_t rings[2][3] = {	/* desc, used, avail */
		{ 0x7f3300000000ULL, 0x7f3300008000ULL, 0x7f3300004000ULL },
		{ 0x7f3300010000ULL, 0x7f3300018000ULL, 0x7f3300014000ULL },
	};
	uint8_t t[8 + 32] = { 1 }, a[40];
	const unsigned int ack = 0x1 | 0x8;
	uint64_t v;
	unsigned int q;

	gen_msg(s, 0, 1, 1, NULL, 0);			/* GET_FEATURES */
	gen_msg(s, 0, 3, 1, NULL, 0);			/* SET_OWNER */
	gen_msg(s, 0, 15, 1, NULL, 0);		/* GET_PROTOCOL_FEATURES */
	gen_u64_msg(s, 0, 16, 1, 1ULL << 3);		/* REPLY_ACK */
	gen_u64_msg(s, 0, 2, ack, (1ULL << 32) | (1ULL << 30) | (1ULL << 15));

	v = 0x40000000ULL;				/* guest address */
	memcpy(t + 8, &v, 8);
	v = 20U << 20;					/* size */
	memcpy(t + 16, &v, 8);
	v = 0x7f3300000000ULL;				/* front-end */
	memcpy(t + 24, &v, 8);
	gen_msg(s, (3 << 4) | 1, 5, ack, t, sizeof(t));

	for (q = 0; q < 2; q++) {
		gen_state_msg(s, 8, ack, q, q ? 256 : 512);
		gen_state_msg(s, 10, ack, q, 0);
		memset(a, 0, sizeof(a));
		a[0] = (uint8_t)q;
		memcpy(a + 8, rings[q], 24);
		gen_msg(s, 0, 9, ack, a, sizeof(a));
		gen_u64_msg(s, 1, 12, ack, q);		/* kick */
		gen_u64_msg(s, 1, 13, ack, q);		/* call */
	}
	gen_state_msg(s, 18, ack, 0, 1);
	gen_state_msg(s, 18, ack, 1, 1);
}

/**
 * gen_vu_msg() - seeds of fuzz_vu_msg
 */
static void gen_vu_msg(void)
{
	static struct gen_buf s;
	const size_t n = sizeof(gen_qemu72) / sizeof(gen_qemu72[0]);

	s.n = 0;
	gen_qemu72_msgs(&s, n);
	gen_write("fuzz_vu_msg", "qemu72_boot_poweroff", s.b, s.n);

	/* The boot alone: up to the last queue set-up, before the two
	 * GET_VRING_BASE of the power-off
	 */
	s.n = 0;
	gen_qemu72_msgs(&s, n - 4);
	gen_write("fuzz_vu_msg", "qemu72_boot", s.b, s.n);

	s.n = 0;
	gen_vu_bridge_setup(&s);
	gen_write("fuzz_vu_msg", "vu_bridge_setup", s.b, s.n);

	/* Out of order: rings and kicks before the memory and features,
	 * then a reset and the boot again
	 */
	s.n = 0;
	gen_qemu72_msgs(&s, n);
	gen_msg(&s, 0, 34, 1, NULL, 0);			/* RESET_DEVICE */
	gen_qemu72_msgs(&s, n - 4);
	gen_write("fuzz_vu_msg", "qemu72_reset_boot", s.b, s.n);

	s.n = 0;
	gen_vu_bridge_setup(&s);
	gen_state_msg(&s, 11, 1, 1, 0);			/* GET_VRING_BASE */
	gen_u64_msg(&s, 1, 12, 1, 1);			/* a new kick */
	gen_msg(&s, 0, 4, 1, NULL, 0);			/* RESET_OWNER */
	gen_state_msg(&s, 18, 1, 0, 1);
	gen_write("fuzz_vu_msg", "vu_bridge_stop_restart", s.b, s.n);
}

/**
 * gen_vq_header() - the input header of fuzz_vu_virtq
 * @s:		seed
 * @features:	byte 0 (see fuzz_vu_virtq.c)
 */
static void gen_vq_header(struct gen_buf *s, unsigned int features)
{
	unsigned int i;

	gen_u8(s, features);
	gen_u8(s, 0x88);			/* 256 entries each */
	for (i = 0; i < 6; i++)
		gen_le(s, gen_vq_rings[i], 2);
}

/**
 * gen_vq_write() - operation "write": bytes into guest memory
 * @s:		seed
 * @off:	offset in guest memory
 * @p:		bytes
 * @len:	their number
 */
static void gen_vq_write(struct gen_buf *s, uint32_t off, const uint8_t *p,
			 size_t len)
{
	while (len) {
		size_t n = len > 255 ? 255 : len;

		gen_u8(s, 0);
		gen_le(s, off, 3);
		gen_u8(s, (unsigned int)n);
		gen_put(s, p, n);
		off += (uint32_t)n;
		p += n;
		len -= n;
	}
}

/**
 * gen_vq_desc() - operation "desc"
 * @s:		seed
 * @q:		queue
 * @i:		index
 * @addr:	buffer offset in guest memory
 * @len:	length
 * @flags:	flags
 * @next:	next index
 */
static void gen_vq_desc(struct gen_buf *s, unsigned int q, unsigned int i,
			uint32_t addr, uint32_t len, unsigned int flags,
			unsigned int next)
{
	gen_u8(s, 1 | q << 4);
	gen_le(s, i, 2);
	gen_le(s, addr, 4);
	gen_le(s, len, 4);
	gen_le(s, flags, 2);
	gen_le(s, next, 2);
}

/**
 * gen_vq_rx_bufs() - receive buffers as the guest's driver posted them
 * @s:		seed
 */
static void gen_vq_rx_bufs(struct gen_buf *s)
{
	unsigned int i;

	for (i = 0; i < GEN_VQ_RX_BUFS; i++) {
		gen_vq_desc(s, 0, i, GEN_VQ_SCRATCH + i * 2048, GEN_VQ_RX_BUF,
			    2 /* WRITE */, 0);
		gen_u8(s, 2);				/* avail */
		gen_le(s, i, 2);
	}
}

/**
 * gen_vq_chain() - a recorded transmit chain: buffers, descriptors, kick
 * @s:		seed
 * @d:		its descriptors
 * @n:		their number
 * @hdr_len:	the virtio-net header length to keep (12, or 10: the
 *		recorded num_buffers dropped)
 */
static void gen_vq_chain(struct gen_buf *s, const struct gen_vu_desc *d,
			 size_t n, size_t hdr_len)
{
	static uint8_t b[70000];
	uint32_t at = GEN_VQ_SCRATCH + 0x40000;
	size_t k;

	for (k = 0; k < n; k++) {
		size_t len = gen_hex(d[k].hex, b, sizeof(b)), skip = 0;

		if (!k && hdr_len < 12) {
			memmove(b + 10, b + 12, len - 12);
			skip = 12 - hdr_len;
		}
		gen_vq_write(s, at, b, len - skip);
		gen_vq_desc(s, 1, d[k].i, at, (uint32_t)(d[k].len - skip),
			    d[k].flags, d[k].next);
		at += (uint32_t)((len + 63) / 64 * 64);
	}
	gen_u8(s, 2 | 1 << 4);				/* avail */
	gen_le(s, d[0].i, 2);
	gen_u8(s, 4 | 1 << 4);				/* kick */
}

/**
 * gen_vq_seed() - a fuzz_vu_virtq seed around one recorded chain
 * @name:	seed name
 * @features:	byte 0 of the input
 * @d:		the chain's descriptors
 * @n:		their number
 * @hdr_len:	virtio-net header length of the features
 */
static void gen_vq_seed(const char *name, unsigned int features,
			const struct gen_vu_desc *d, size_t n, size_t hdr_len)
{
	static struct gen_buf s;

	s.n = 0;
	gen_vq_header(&s, features);
	gen_vq_rx_bufs(&s);
	gen_u8(&s, 4);					/* kick RX */
	gen_vq_chain(&s, d, n, hdr_len);
	gen_u8(&s, 6 | 1 << 5);				/* run */
	gen_u8(&s, 5);					/* frame */
	gen_le(&s, 60, 2);
	gen_u8(&s, 0x5a);
	gen_put(&s, "\0\0\0\0\0\0\0\0\0\0", 10);
	gen_u8(&s, 6);
	gen_write("fuzz_vu_virtq", name, s.b, s.n);
}

/* byte 0 of fuzz_vu_virtq for the recorded features: mergeable buffers,
 * event index, VERSION_1, offloads both ways, protocol features
 */
#define GEN_VQ_QEMU72		0x3f

/**
 * gen_vq_lend() - operation "lend": TCP frames written in place
 * @s:		seed
 * @frames:	frames asked for
 * @payload:	payload a frame may carry
 * @bytes:	payload bytes written, frame after frame
 */
static void gen_vq_lend(struct gen_buf *s, unsigned int frames,
			unsigned int payload, unsigned int bytes)
{
	/* NEEDS_CSUM, TCPv4, hdr_len 54, gso_size 1448, csum 34 + 16 */
	static const uint8_t vh[10] = { 1, 1, 54, 0, 0xa8, 0x05, 34, 0, 16,
					0 };

	gen_u8(s, 10);
	gen_u8(s, frames);
	gen_le(s, payload, 2);
	gen_u8(s, 0x5a);
	gen_le(s, bytes, 2);
	gen_put(s, vh, sizeof(vh));
}

/**
 * gen_vq_lend_seed() - TCP data to the guest in its own buffers, as the
 *			recorded driver posted them: two frames of three
 *			buffers, a short third one, then one more turn
 */
static void gen_vq_lend_seed(void)
{
	static struct gen_buf s;

	s.n = 0;
	gen_vq_header(&s, GEN_VQ_QEMU72);
	gen_vq_rx_bufs(&s);
	gen_u8(&s, 4);					/* kick RX */
	gen_vq_lend(&s, 4, 4000, 9000);
	gen_u8(&s, 6);					/* run */
	gen_vq_lend(&s, 1, 1000, 200);
	gen_u8(&s, 6);
	gen_write("fuzz_vu_virtq", "tcp_lend", s.b, s.n);
}

#define GEN_VQ(name)	gen_vq_seed(#name, GEN_VQ_QEMU72, gen_tx_##name, \
				    sizeof(gen_tx_##name) /		 \
				    sizeof(gen_tx_##name[0]), 12)

/**
 * gen_vu_virtq() - seeds of fuzz_vu_virtq
 */
static void gen_vu_virtq(void)
{
	GEN_VQ(dhcp_discover);
	GEN_VQ(arp_request);
	GEN_VQ(icmp_echo);
	GEN_VQ(ndp_ns);
	GEN_VQ(ndp_rs);
	GEN_VQ(tcp_syn);
	GEN_VQ(tcp_data_2desc);
	GEN_VQ(tcp_data_4k_2desc);

	/* A legacy guest: no VERSION_1, no mergeable buffers, 10 bytes */
	gen_vq_seed("legacy_arp_request", 0x00, gen_tx_arp_request, 1, 10);

	gen_vq_lend_seed();
}

/**
 * gen_vu() - seeds of both vhost-user targets
 */
void gen_vu(void)
{
	gen_vu_msg();
	gen_vu_virtq();
}
