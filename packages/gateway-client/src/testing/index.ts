export { type FakeFailure, type FakeGateway, type SeenRequest, startFakeGateway } from "./fake-gateway.ts";
