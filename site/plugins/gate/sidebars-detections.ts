import { GATED_SECTIONS } from './config';
import { gatedSidebar } from './sidebars';

export default gatedSidebar(GATED_SECTIONS.find((s) => s.id === 'gated-detections')!);
