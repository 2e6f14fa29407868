import ComponentTypes from '@theme-original/NavbarItem/ComponentTypes';
import AccountNavbarItem from '@site/src/components/login/AccountNavbarItem';

/** The theme's navbar item types, plus `custom-account`: the signed-in reader's account menu. */
export default {
  ...ComponentTypes,
  'custom-account': AccountNavbarItem,
};
