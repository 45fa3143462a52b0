import { adapterSuite } from './suite.js';

adapterSuite('solid');
