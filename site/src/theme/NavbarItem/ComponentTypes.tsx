import ComponentTypes from '@theme-original/NavbarItem/ComponentTypes';
import AccountSlot from '@site/src/components/login/AccountSlot';

/** The theme's navbar item types, plus `custom-account`: the signed-in reader's account menu (loaded once signed in). */
export default {
  ...ComponentTypes,
  'custom-account': AccountSlot,
};
