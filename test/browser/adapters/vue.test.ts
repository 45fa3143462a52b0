import { adapterSuite } from './suite.js';

adapterSuite('vue');
